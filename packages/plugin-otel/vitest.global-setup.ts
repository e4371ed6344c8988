// The Prometheus test scrapes `/metrics` with a real Prometheus and checks it with promtool, both from
// Debian's `prometheus` package. Installed here when missing (as root, with apt-get); otherwise the run
// fails with what to install — it is never skipped silently.
import { execFileSync } from 'node:child_process';

const INSTALL_TIMEOUT_MS = 10 * 60_000;

function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export default function setup(): void {
  if (has('prometheus') && has('promtool')) return;
  const root = process.getuid?.() === 0;
  if (!root || !has('apt-get')) {
    throw new Error(
      '@pier/plugin-otel tests need `prometheus` and `promtool` on PATH: install Debian’s package ' +
        '(`sudo apt-get install -y prometheus`) or Prometheus ≥ 2.42 from prometheus.io, then run again.',
    );
  }
  process.stderr.write('plugin-otel: installing Debian’s prometheus package for the scrape test…\n');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update'], { stdio: 'inherit', env, timeout: INSTALL_TIMEOUT_MS });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'prometheus'], {
      stdio: 'inherit',
      env,
      timeout: INSTALL_TIMEOUT_MS,
    });
  } catch (error) {
    throw new Error(
      `@pier/plugin-otel tests: installing prometheus with apt-get failed (${(error as Error).message}); ` +
        'install it by hand (`apt-get install -y prometheus`) and run again.',
    );
  }
  if (!has('prometheus') || !has('promtool')) {
    throw new Error(
      '@pier/plugin-otel tests: apt-get installed prometheus, but prometheus/promtool are not on PATH',
    );
  }
}
