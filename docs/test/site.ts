import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built site: `pnpm docs:build` (the docs package's `build`) writes it. */
export const SITE = fileURLToPath(new URL('../.vitepress/dist', import.meta.url));

export function ensureSite(): void {
  if (!existsSync(`${SITE}/index.html`)) {
    throw new Error(`docs test: no built site in ${SITE}; run \`npx -y pnpm@10.34.9 docs:build\` first`);
  }
}
