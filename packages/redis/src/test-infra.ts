// Test helper (excluded from the build): real redis-server and HAProxy from Debian's packages, installed
// with apt-get when missing (or a failure saying how), started on free loopback ports, stopped by PID.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PACKAGES: Record<string, string> = { 'redis-server': 'redis-server', haproxy: 'haproxy' };

function found(binary: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Installs redis-server and haproxy with apt-get when missing; throws how to install them otherwise. */
export function ensureInstalled(): void {
  const missing = Object.keys(PACKAGES).filter((binary) => !found(binary));
  if (missing.length === 0) return;
  const packages = missing.map((binary) => PACKAGES[binary] as string);
  const how = `apt-get update && apt-get install -y ${packages.join(' ')}`;
  if (process.getuid?.() !== 0 || !found('apt-get')) {
    throw new Error(`@pier/redis tests need ${missing.join(' and ')}; install them first: sudo ${how}`);
  }
  try {
    execFileSync('sh', ['-c', how], { stdio: 'ignore', timeout: 240_000 });
  } catch (error) {
    throw new Error(`@pier/redis tests: \`${how}\` failed (${String(error)}); install them by hand`);
  }
  const still = Object.keys(PACKAGES).filter((binary) => !found(binary));
  if (still.length > 0) throw new Error(`@pier/redis tests: ${still.join(', ')} still missing after ${how}`);
}

/** A free loopback port (closed again at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** A child process stopped by its own PID, waiting (bounded) for it to exit. */
async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, signal);
  const timer = setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  }, 5_000);
  await exited;
  clearTimeout(timer);
}

/** Waits (bounded) until `text` appears on the child's stdout or stderr. */
function waitForOutput(child: ChildProcess, text: string, what: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${ms} ms:\n${seen}`)), ms);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${String(code)}:\n${seen}`));
    });
  });
}

export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  /** SIGKILLs it (an outage: nothing flushed, nothing persisted). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Sends it a signal by its PID (`SIGSTOP`: it stops answering with its connections open; `SIGCONT`). */
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/** A redis-server on a free loopback port, no persistence; `args` are more of its options. */
export async function startRedis(args: readonly string[] = []): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    await waitForOutput(child, 'Ready to accept connections', 'redis-server');
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill: () => stopChild(child, 'SIGKILL'),
    restart: launch,
    signal: (signal) => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, signal);
    },
    stop: () => stopChild(child),
  };
}

export interface LoadBalancer {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * HAProxy round-robin over `backends` (name → port), health-checked on `/health/ready`, answering with an
 * `X-Pier-Replica` header naming the server it picked (test only). `sticky` adds the stick table on
 * `Mcp-Session-Id` that the documentation site's @pier/redis page documents.
 */
export async function startHaproxy(
  backends: Readonly<Record<string, number>>,
  options: { sticky?: boolean; path?: string } = {},
): Promise<LoadBalancer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pier-haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(port, backends, options.sticky === true));
  const child = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const failed = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`haproxy exited with ${String(code)}`))),
  );
  failed.catch(() => undefined);
  // Ready when every backend passed its check: a request through it reaches some replica.
  const url = `http://127.0.0.1:${port}${options.path ?? '/mcp'}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stats = await fetch(`http://127.0.0.1:${port}/haproxy-stats;csv`)
      .then((response) => response.text())
      .catch(() => '');
    const up = stats.split('\n').filter((line) => line.startsWith('be,r') && line.includes(',UP,')).length;
    if (up === Object.keys(backends).length) break;
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`haproxy: backends not all UP within 10 s:\n${stats}`);
    }
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), failed]);
  }
  return { url, stop: () => stopChild(child) };
}

/** The configuration docs/packages/redis.md shows, with the test's ports. */
export function haproxyConfig(
  port: number,
  backends: Readonly<Record<string, number>>,
  sticky: boolean,
): string {
  return `global
  maxconn 2000

defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout tunnel 120s
  # As in the deploy config: a readiness answer may take this long. Unset, HAProxy allows only \`inter\`
  # (500 ms), and with \`fall 1\` one slow answer on a loaded machine would take a healthy replica out.
  timeout check 2s
  option redispatch
  retries 2

frontend fe
  bind 127.0.0.1:${port}
  stats enable
  stats uri /haproxy-stats
  default_backend be

backend be
  balance roundrobin
  option httpchk
  # HTTP/1.1 with a Host the replicas accept: a check without one gets 403 from the DNS-rebinding guard.
  http-check send meth GET uri /health/ready ver HTTP/1.1 hdr Host 127.0.0.1
  http-check expect status 200
  retry-on conn-failure empty-response
  http-response set-header X-Pier-Replica %s
${
  sticky
    ? `  stick-table type string len 64 size 100k expire 30m
  stick store-response res.hdr(mcp-session-id)
  stick match req.hdr(mcp-session-id)
`
    : ''
}${Object.entries(backends)
  .map(([name, backendPort]) => `  server ${name} 127.0.0.1:${backendPort} check inter 500ms fall 1 rise 1`)
  .join('\n')}
`;
}

const FIXTURE = new URL('../test/replica.mjs', import.meta.url).pathname;

export interface ReplicaProcess {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly child: ChildProcess;
  readonly alive: () => boolean;
}

/** Starts test/replica.mjs (a small notes server; `env` picks its options) as its own process; resolves once it listens (bounded). */
export function spawnReplica(name: string, env: Record<string, string>): Promise<ReplicaProcess> {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, REPLICA_ID: name, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within 20 s:\n${output}`)),
      20_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /READY (\d+)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        const port = Number(ready[1]);
        resolve({
          name,
          port,
          url: `http://127.0.0.1:${port}/mcp`,
          child,
          alive: () => child.exitCode === null && child.signalCode === null,
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${String(code)}:\n${output}`));
    });
  });
}

/** Stops a replica by its PID: SIGTERM, SIGKILL after 5 s. */
export async function stopReplica(replica: ReplicaProcess): Promise<void> {
  if (!replica.alive() || replica.child.pid === undefined) return;
  const exited = new Promise((resolve) => replica.child.once('exit', resolve));
  process.kill(replica.child.pid, 'SIGTERM');
  const timer = setTimeout(() => replica.alive() && replica.child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
