// Debian's Chromium for the browser test: installed with apt-get when missing (as root), or a failure
// that says how. Playwright's own browser download cannot work here (no network beyond the registries).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.PIER_CHROMIUM ?? '/usr/bin/chromium';

/** The flags a headless Chromium needs on a machine without network (and as root). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const how =
    'install it with `apt-get update && apt-get install -y chromium` (Debian), or set PIER_CHROMIUM';
  if (process.getuid?.() !== 0)
    throw new Error(`docs test: ${CHROMIUM} is missing and this is not root: ${how}`);
  const started = Date.now();
  process.stderr.write('docs test: installing Debian chromium with apt-get (about a minute)…\n');
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync(
      'apt-get',
      ['install', '-y', '-qq', '--no-install-recommends', 'chromium', 'fonts-liberation'],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      },
    );
  } catch (error) {
    throw new Error(`docs test: apt-get could not install chromium (${(error as Error).message}): ${how}`);
  }
  if (!existsSync(CHROMIUM))
    throw new Error(`docs test: apt-get ran but ${CHROMIUM} is still missing: ${how}`);
  process.stderr.write(`docs test: chromium installed in ${Math.round((Date.now() - started) / 1000)} s\n`);
}
