// After `vitepress build` (which already fails on a link to a page that does not exist): every internal
// link and image of the built site must reach a file, and every #fragment an element with that id on the
// page it names. Reads the HTML VitePress wrote, so what is checked is what readers get.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const site = join(dirname(fileURLToPath(import.meta.url)), '..', '.vitepress', 'dist');

function htmlFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : htmlFiles(path);
    return entry.name.endsWith('.html') ? [path] : [];
  });
}

const decode = (text) =>
  text.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<');

const ids = new Map();
const idsOf = (file) => {
  let found = ids.get(file);
  if (found === undefined) {
    const html = readFileSync(file, 'utf8');
    found = new Set(
      [...html.matchAll(/\sid="([^"]*)"/g)].map((match) => decodeURIComponent(decode(match[1]))),
    );
    ids.set(file, found);
  }
  return found;
};

/** The file a site path names, as the static host serves it. */
function target(path) {
  const file = join(site, decodeURIComponent(path));
  if (existsSync(file) && statSync(file).isDirectory()) return join(file, 'index.html');
  return file;
}

const problems = [];
let links = 0;
for (const file of htmlFiles(site)) {
  const page = `/${relative(site, file).split(sep).join('/')}`;
  // Only the page's own content: the theme's chrome (nav, sidebar) links to pages checked on their own.
  const html = readFileSync(file, 'utf8');
  for (const match of html.matchAll(/<(a|img)\s[^>]*?(href|src)="([^"]*)"/g)) {
    const url = decode(match[3]);
    if (/^(https?:|mailto:|data:|javascript:)/.test(url) || url === '') continue;
    links += 1;
    const resolved = new URL(url, `http://site${page}`);
    const path = resolved.pathname;
    const destination = target(path);
    if (!existsSync(destination)) {
      problems.push(`${page}: ${url} → no file ${relative(site, destination)}`);
      continue;
    }
    const fragment = decodeURIComponent(resolved.hash.slice(1));
    if (fragment !== '' && destination.endsWith('.html') && !idsOf(destination).has(fragment)) {
      problems.push(`${page}: ${url} → no element with id "${fragment}" on ${path}`);
    }
  }
}

if (problems.length > 0) {
  console.error(`docs: ${problems.length} broken link(s) in the built site:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.error(`docs: ${links} internal links and images checked, every one reaches its page and anchor`);
