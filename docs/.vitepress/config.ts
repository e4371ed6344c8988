import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DefaultTheme, defineConfig } from 'vitepress';

// The API reference's sidebar is written by scripts/api.mjs next to the pages it generates.
const apiSidebarFile = fileURLToPath(new URL('../api/sidebar.json', import.meta.url));
const apiSidebar: DefaultTheme.SidebarItem[] = existsSync(apiSidebarFile)
  ? JSON.parse(readFileSync(apiSidebarFile, 'utf8'))
  : [];

export default defineConfig({
  title: 'Pier',
  description: 'A TypeScript framework for Model Context Protocol servers.',
  lang: 'en-US',
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  cleanUrls: false,
  lastUpdated: false,
  // Dead internal links fail the build (VitePress's default, kept on); scripts/check-links.mjs checks anchors.
  ignoreDeadLinks: false,
  srcExclude: ['README.md', 'samples/**', 'test/**', 'scripts/**', 'node_modules/**'],
  vite: {
    // The largest chunk is the local search index (about 0.75 MB, with every package's full reference on
    // the site), loaded only when the search box opens.
    build: { chunkSizeWarningLimit: 1200 },
  },
  markdown: {
    theme: { light: 'github-light', dark: 'github-dark' },
  },
  themeConfig: {
    // Local search (MiniSearch, built into VitePress): the index ships with the site and works offline.
    search: { provider: 'local' },
    logo: '/favicon.svg',
    outline: [2, 3],
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Concepts', link: '/concepts/declaration' },
      { text: 'Packages', link: '/packages/core' },
      { text: 'API', link: '/api/' },
      { text: 'Performance', link: '/performance' },
    ],
    sidebar: {
      '/api/': [{ text: 'API reference', link: '/api/', items: apiSidebar }],
      '/': [
        {
          text: 'Start',
          items: [
            { text: 'Getting started', link: '/guide/getting-started' },
            { text: 'Architecture', link: '/architecture' },
          ],
        },
        {
          text: 'Concepts',
          items: [
            { text: 'Declaring a server', link: '/concepts/declaration' },
            { text: 'The request engine', link: '/concepts/engine' },
            { text: 'Protocol eras', link: '/concepts/eras' },
            { text: 'Plugins', link: '/concepts/plugins' },
          ],
        },
        {
          text: 'Guides',
          items: [
            { text: 'Authorization', link: '/guides/auth' },
            { text: 'MCP Apps', link: '/guides/apps' },
            { text: 'Tasks and skills', link: '/guides/tasks' },
            { text: 'Scale-out', link: '/guides/scale-out' },
            { text: 'Observability', link: '/guides/observability' },
            { text: 'Testing', link: '/guides/testing' },
            { text: 'The pier CLI', link: '/guides/cli' },
          ],
        },
        {
          text: 'Deploy',
          items: [
            { text: 'Where Pier runs', link: '/deploy/' },
            { text: 'Node listener', link: '/deploy/node' },
            { text: 'Fetch handler', link: '/deploy/fetch' },
            { text: 'Express 5', link: '/deploy/express' },
            { text: 'Fastify 5', link: '/deploy/fastify' },
            { text: 'Hono 4', link: '/deploy/hono' },
            { text: 'Next.js', link: '/deploy/nextjs' },
            { text: 'Bun', link: '/deploy/bun' },
            { text: 'Deno', link: '/deploy/deno' },
            { text: 'Cloudflare Workers', link: '/deploy/workers' },
          ],
        },
        {
          text: 'Packages',
          items: [
            { text: '@pier/core', link: '/packages/core' },
            { text: '@pier/transport-http', link: '/packages/transport-http' },
            { text: '@pier/config', link: '/packages/config' },
            { text: '@pier/plugin-health', link: '/packages/plugin-health' },
            { text: '@pier/plugin-auth', link: '/packages/plugin-auth' },
            { text: '@pier/oauth-proxy', link: '/packages/oauth-proxy' },
            { text: '@pier/redis', link: '/packages/redis' },
            { text: '@pier/plugin-otel', link: '/packages/plugin-otel' },
            { text: '@pier/plugin-limits', link: '/packages/plugin-limits' },
            { text: '@pier/testing', link: '/packages/testing' },
            { text: '@pier/cli', link: '/packages/cli' },
            { text: 'create-pier', link: '/packages/create-pier' },
          ],
        },
        {
          text: 'Reference',
          items: [
            { text: 'API reference', link: '/api/' },
            { text: 'Performance', link: '/performance' },
          ],
        },
      ],
    },
    socialLinks: [{ icon: 'github', link: 'https://github.com/pier-dev/pier' }],
    footer: { message: 'MIT licensed.' },
  },
});
