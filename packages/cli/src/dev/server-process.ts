// One generation of the user's server: the bundle, run as a cluster worker of pier dev. As the cluster's
// primary, pier dev owns every listening socket its workers open (a worker's `listen(3000)` is served
// from a handle the primary holds), so the port stays open while one generation hands over to the
// next. The worker's stdio are pipes: stdout is the protocol on stdio, stderr is shown on pier dev's.
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import type { JsonRpc, RelayServer } from './relay.js';

// The primary passes listening handles to workers (no round-robin through pier dev's event loop):
// pier dev's own work (builds, the relay) never delays a connection.
cluster.schedulingPolicy = cluster.SCHED_NONE;

const HOOK = fileURLToPath(new URL('./worker-hook.js', import.meta.url));
const LISTENING = /listening transport=(stdio|streamable-http) url=(\S+)/;

export interface ServerProcessOptions {
  readonly generation: number;
  readonly bundle: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Each line the server writes on stderr. */
  readonly onStderr: (line: string) => void;
}

export type Transport = { readonly kind: 'stdio' } | { readonly kind: 'http'; readonly url: string };

export class ServerProcess implements RelayServer {
  readonly label: string;
  readonly worker: Worker;
  /** Resolves with how the server serves, once it said so; rejects if it exits first. */
  readonly ready: Promise<Transport>;
  /** Resolves with a description of how it ended. */
  readonly exited: Promise<string>;
  #listeners: ((message: JsonRpc) => void)[] = [];
  #stdout = '';
  #stopping = false;

  constructor(options: ServerProcessOptions) {
    this.label = `#${options.generation}`;
    cluster.setupPrimary({
      exec: options.bundle,
      args: [...options.args],
      execArgv: ['--enable-source-maps', '--import', HOOK],
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
      silent: true,
    });
    this.worker = cluster.fork({ ...options.env, PIER_DEV: '1' });
    const child = this.worker.process;
    let stderrBuffer = '';
    let resolveReady: (transport: Transport) => void = () => undefined;
    let rejectReady: (error: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderrBuffer += chunk;
      let newline = stderrBuffer.indexOf('\n');
      while (newline !== -1) {
        const line = stderrBuffer.slice(0, newline);
        stderrBuffer = stderrBuffer.slice(newline + 1);
        newline = stderrBuffer.indexOf('\n');
        const said = LISTENING.exec(line);
        if (said !== null) {
          resolveReady(said[1] === 'stdio' ? { kind: 'stdio' } : { kind: 'http', url: said[2] ?? '' });
        }
        options.onStderr(line);
      }
    });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => this.#read(chunk));
    // A server whose log level hides the `listening` line still opens its socket through the primary.
    this.worker.on('listening', (address) => {
      const host =
        address.address === null || address.address === undefined || address.address === ''
          ? '127.0.0.1'
          : address.address;
      resolveReady({
        kind: 'http',
        url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/mcp`,
      });
    });
    this.exited = new Promise((resolve) => {
      this.worker.on('exit', (code, signal) => {
        if (stderrBuffer !== '') options.onStderr(stderrBuffer);
        const why = signal !== null && signal !== undefined ? `signal ${signal}` : `exit code ${code}`;
        rejectReady(new Error(`the server exited (${why}) before it was ready`));
        resolve(why);
      });
    });
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  send(message: JsonRpc): void {
    const stdin = this.worker.process.stdin;
    if (stdin === null || stdin.destroyed || stdin.writableEnded) return;
    stdin.write(`${JSON.stringify(message)}\n`);
  }

  onMessage(listener: (message: JsonRpc) => void): void {
    this.#listeners.push(listener);
  }

  end(): void {
    this.worker.process.stdin?.end();
  }

  /**
   * Stops it gracefully: HTTP — stop accepting, close idle keep-alive connections, let requests in
   * flight finish (up to `graceMs`); stdio — input ended by the relay. Then SIGINT (Pier closes at once),
   * and SIGKILL if it is still there 5 s later.
   */
  async stop(graceMs: number): Promise<string> {
    if (!this.#stopping) {
      this.#stopping = true;
      if (this.worker.isConnected()) this.worker.send({ pierDev: 'retire' });
      const grace = setTimeout(() => this.#signal('SIGINT'), graceMs);
      const kill = setTimeout(() => this.#signal('SIGKILL'), graceMs + 5_000);
      grace.unref();
      kill.unref();
      void this.exited.then(() => {
        clearTimeout(grace);
        clearTimeout(kill);
      });
    }
    return this.exited;
  }

  /** Stops it now (pier dev is exiting): SIGINT, SIGKILL after 5 s. */
  async kill(): Promise<string> {
    this.#stopping = true;
    this.#signal('SIGINT');
    const kill = setTimeout(() => this.#signal('SIGKILL'), 5_000);
    kill.unref();
    const why = await this.exited;
    clearTimeout(kill);
    return why;
  }

  #signal(signal: NodeJS.Signals): void {
    const child = this.worker.process;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }

  #read(chunk: string): void {
    this.#stdout += chunk;
    let newline = this.#stdout.indexOf('\n');
    while (newline !== -1) {
      const line = this.#stdout.slice(0, newline).trim();
      this.#stdout = this.#stdout.slice(newline + 1);
      newline = this.#stdout.indexOf('\n');
      if (line === '') continue;
      let message: JsonRpc;
      try {
        message = JSON.parse(line) as JsonRpc;
      } catch {
        // Not protocol: a stray console.log in the server. It must not reach the client's stdout.
        process.stderr.write(
          `pier dev: the server wrote a non-protocol line on stdout (use stderr for logs): ${line.slice(0, 200)}\n`,
        );
        continue;
      }
      for (const listener of this.#listeners) listener(message);
    }
  }
}
