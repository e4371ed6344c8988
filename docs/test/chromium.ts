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
  // Other packages' test setups install with apt-get too (redis-server, prometheus) and may run at the
  // same time: wait for dpkg's lock instead of failing on it, and try again if apt still found it taken.
  const apt = (args: string[]) =>
    execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 600_000,
    });
  let failure: unknown;
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    try {
      apt(['update', '-qq']);
      apt(['install', '-y', '-qq', '--no-install-recommends', 'chromium', 'fonts-liberation']);
      failure = undefined;
      break;
    } catch (error) {
      failure = error;
      execFileSync('sleep', [String(5 * attempt)]);
    }
  }
  if (failure !== undefined) {
    throw new Error(`docs test: apt-get could not install chromium (${(failure as Error).message}): ${how}`);
  }
  if (!existsSync(CHROMIUM))
    throw new Error(`docs test: apt-get ran but ${CHROMIUM} is still missing: ${how}`);
  process.stderr.write(`docs test: chromium installed in ${Math.round((Date.now() - started) / 1000)} s\n`);
}
