// Test helper (not built): Debian's Chromium, driven by playwright-core. Installed with apt-get when missing
// (the test runs as root on CI and the project's machines), or a failure saying how; never skipped.
import { execFileSync } from 'node:child_process';
import { type Browser, chromium } from 'playwright-core';

const PACKAGE = 'chromium';

/** The path of the `chromium` binary, installing Debian's package first when it is missing. */
export function ensureChromium(): string {
  const found = which('chromium');
  if (found !== undefined) return found;
  const how = `apt-get update && apt-get install -y ${PACKAGE}`;
  if (process.getuid?.() !== 0 || which('apt-get') === undefined) {
    throw new Error(`the MCP Apps browser test needs Chromium; install it first: sudo ${how}`);
  }
  try {
    execFileSync('sh', ['-c', how], { stdio: 'ignore', timeout: 600_000 });
  } catch (error) {
    throw new Error(`the MCP Apps browser test: \`${how}\` failed (${String(error)}); install it by hand`);
  }
  const installed = which('chromium');
  if (installed === undefined) throw new Error(`chromium is still missing after \`${how}\``);
  return installed;
}

/** Headless Chromium with nothing that reaches beyond this machine. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

function which(binary: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}
