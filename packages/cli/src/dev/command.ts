// `pier dev [entry] [-- server args…]`: build the server from TypeScript source, run it, and on every
// change rebuild, type-check and swap in the new server — keeping the old one when anything fails.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { milliseconds, parseFlags } from '../args.js';
import { CliError, messageOf, type UsageIssues } from '../errors.js';
import type { Io, Style } from '../io.js';
import { printHelp, styleFor } from '../io.js';
import { type Builder, createBuilder, shortPath } from './build.js';
import { startInspector } from './inspector.js';
import { StdioRelay } from './relay.js';
import { ServerProcess, type Transport } from './server-process.js';
import { createTypeChecker, type TypeChecker } from './typecheck.js';
import { SourceWatcher } from './watch.js';

export const DEV_HELP = `Usage: pier dev [entry] [options] [-- server args…]

Runs the server from its TypeScript source (default entry: src/main.ts) and reloads it when a file it
imports changes. Arguments after -- go to the server (say -- --transport streamable-http --port 3000).

Over stdio, pier dev is the process the MCP client spawned: it swaps the server behind the client's
connection, replays the client's handshake to the new server, and tells the client
notifications/tools/list_changed (prompts, resources) when the lists changed. Over HTTP the port stays
open across reloads and calls in flight finish on the old code. A build error, a type error, or a
server that fails to start keeps the last good server running; the error is printed on stderr.

Options:
  --inspector        also start the MCP Inspector (web UI) connected to the server; prints its URL
  --no-typecheck     swap on a successful build without waiting for the type checker
  --watch <path>     also reload when this file or directory changes (repeatable)
  --grace <ms>       how long an old server may finish calls in flight (default 10000)
  -h, --help         this help

Exit codes: 0 stopped (Ctrl-C, or the client closed stdio); 1 the entry could not be found or built
and nothing could run; 2 usage error.
`;

export async function devCommand(argv: readonly string[], io: Io): Promise<number> {
  const { flags, positionals, tail, issues } = parseFlags('dev', argv, {
    inspector: { type: 'boolean' },
    'no-typecheck': { type: 'boolean' },
    watch: { type: 'string', multiple: true },
    grace: { type: 'string' },
  });
  if (flags.help) return printHelp(io, DEV_HELP);
  if (positionals.length > 1)
    issues.add(
      `one entry file (got ${positionals.join(', ').slice(0, 80)}); arguments for the server go after --`,
    );
  const entry = findEntry(issues, io.cwd, positionals[0]);
  const graceMs = milliseconds(issues, 'grace', flags.grace, 10_000);
  issues.throwIfAny();
  if (entry === undefined) return 2; // recorded in issues: thrown above
  const session = new DevSession(io, {
    entry,
    projectRoot: projectRootOf(entry),
    serverArgs: tail ?? [],
    typecheck: flags['no-typecheck'] !== true,
    watch: (flags.watch ?? []).map((path) => resolve(io.cwd, path)),
    graceMs,
  });
  if (flags.inspector === true) return session.withInspector(argv);
  return session.run();
}

function findEntry(issues: UsageIssues, cwd: string, given: string | undefined): string | undefined {
  if (given !== undefined) {
    const path = resolve(cwd, given);
    if (existsSync(path)) return path;
    issues.add(`the entry ${given} does not exist (in ${cwd})`);
    return undefined;
  }
  for (const candidate of ['src/main.ts', 'src/index.ts', 'src/server.ts', 'main.ts', 'index.ts']) {
    const path = join(cwd, candidate);
    if (existsSync(path)) return path;
  }
  issues.add(
    `no entry given and none of src/main.ts, src/index.ts, src/server.ts in ${cwd}; pier dev <entry.ts>`,
  );
  return undefined;
}

function projectRootOf(entry: string): string {
  let dir = dirname(entry);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return dirname(entry);
    dir = parent;
  }
}

interface DevOptions {
  readonly entry: string;
  readonly projectRoot: string;
  readonly serverArgs: readonly string[];
  readonly typecheck: boolean;
  readonly watch: readonly string[];
  readonly graceMs: number;
}

class DevSession {
  readonly #io: Io;
  readonly #options: DevOptions;
  readonly #style: Style;
  #builder: Builder | undefined;
  #checker: TypeChecker | undefined;
  #watcher: SourceWatcher | undefined;
  #relay: StdioRelay | undefined;
  /** The client closed stdio: the session ends. */
  readonly #endOnClientEnd = (): void => void this.#shutdown(0);
  #current: ServerProcess | undefined;
  #transport: Transport | undefined;
  #generation = 0;
  #inputs: readonly string[] = [];
  #reloading: Promise<void> | undefined;
  #again = false;
  #stopping = false;
  #done: (code: number) => void = () => undefined;
  readonly #all = new Set<ServerProcess>();

  constructor(io: Io, options: DevOptions) {
    this.#io = io;
    this.#options = options;
    this.#style = styleFor(io.stderr, io.env);
  }

  /** Runs until Ctrl-C, SIGTERM, or (over stdio) the client closing its end. */
  async run(): Promise<number> {
    const finished = new Promise<number>((resolve) => {
      this.#done = resolve;
    });
    const onSignal = () => void this.#shutdown(0);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      this.#builder = await createBuilder(this.#options.entry, this.#options.projectRoot, this.#style.on);
      if (this.#options.typecheck)
        this.#checker = createTypeChecker(this.#options.projectRoot, this.#style.on);
      this.#watcher = new SourceWatcher(() => this.#schedule());
      this.#say(`building ${shortPath(this.#options.projectRoot, this.#options.entry)}`);
      await this.#start();
      void this.#checker?.unavailable.then((why) => {
        if (why !== undefined) this.#say(this.#style.yellow(`type checking is off: ${why}`));
      });
      return await finished;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }

  /** `--inspector`: the Inspector, connected to this server (stdio: to a pier dev it spawns itself). */
  async withInspector(argv: readonly string[]): Promise<number> {
    const io = this.#io;
    const stdioOnly = !this.#options.serverArgs.some((arg) => /^--?(transport|port|http)/.test(arg));
    if (stdioOnly) {
      // Over stdio the Inspector is the client: it spawns `pier dev` (without --inspector), which reloads.
      const bin = fileURLToPath(new URL('../bin.js', import.meta.url));
      const inner = argv.filter((arg) => arg !== '--inspector');
      const inspector = startInspector({
        command: [process.execPath, bin, 'dev', ...withEntry(inner, this.#options.entry)],
        env: io.env,
        cwd: io.cwd,
        onLine: (line) => io.stderr.write(`${this.#style.dim('[inspector]')} ${line}\n`),
      });
      return this.#awaitInspector(inspector);
    }
    const running = this.run();
    const transport = await this.#waitForTransport();
    if (transport?.kind !== 'http') return running;
    const inspector = startInspector({
      url: transport.url,
      env: io.env,
      cwd: io.cwd,
      onLine: (line) => io.stderr.write(`${this.#style.dim('[inspector]')} ${line}\n`),
    });
    void this.#awaitInspector(inspector);
    const code = await running;
    await inspector.stop();
    return code;
  }

  async #awaitInspector(inspector: ReturnType<typeof startInspector>): Promise<number> {
    const stop = () => void inspector.stop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      const url = await inspector.url;
      this.#say(`${this.#style.bold('MCP Inspector')}: ${this.#style.cyan(url)}`);
    } catch (error) {
      this.#say(this.#style.red(`the MCP Inspector did not start: ${messageOf(error)}`));
      await inspector.stop();
      return 1;
    }
    await new Promise<void>((resolve) => inspector.child.once('exit', () => resolve()));
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    return 0;
  }

  async #waitForTransport(): Promise<Transport | undefined> {
    for (let i = 0; i < 600 && this.#transport === undefined && !this.#stopping; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return this.#transport;
  }

  async #start(): Promise<void> {
    const started = Date.now();
    const built = await this.#build();
    if (built === undefined) {
      this.#say(this.#style.red('the server could not be built; waiting for a change'));
      return;
    }
    const server = this.#spawn(built);
    try {
      const transport = await server.ready;
      this.#current = server;
      this.#transport = transport;
      if (transport.kind === 'stdio') {
        this.#relay = new StdioRelay(this.#io.stdin, this.#io.stdout, (line) => this.#say(line));
        this.#relay.onClientEnd = this.#endOnClientEnd;
        this.#relay.attach(server);
      }
      this.#say(
        `${this.#style.green('ready')} in ${Date.now() - started} ms — ${transport.kind === 'http' ? `serving ${this.#style.cyan(transport.url)}` : 'serving stdio'}; watching ${this.#inputs.length} files`,
      );
      void this.#checkTypes(this.#inputs).then((result) => {
        if (result !== undefined && result.errorCount > 0) {
          this.#say(
            this.#style.yellow(
              `type errors (the server runs; the next reload waits for them to be fixed):\n${result.text}`,
            ),
          );
        }
      });
    } catch (error) {
      this.#say(this.#style.red(`${messageOf(error)}; waiting for a change`));
    }
  }

  async #build(): Promise<string | undefined> {
    const builder = this.#builder;
    if (builder === undefined) return undefined;
    const result = await builder.build();
    if (result.inputs.length > 0) {
      if (result.ok) this.#inputs = result.inputs;
      this.#watcher?.update([...new Set([...this.#inputs, ...result.inputs])], this.#options.watch);
    } else {
      this.#watcher?.update([this.#options.entry], this.#options.watch);
    }
    if (result.warnings !== '') this.#io.stderr.write(result.warnings);
    if (!result.ok) {
      this.#io.stderr.write(result.errors);
      return undefined;
    }
    return result.outfile;
  }

  #spawn(bundle: string): ServerProcess {
    const server = new ServerProcess({
      generation: ++this.#generation,
      bundle,
      args: this.#options.serverArgs,
      cwd: this.#options.projectRoot,
      env: this.#io.env,
      onStderr: (line) => this.#io.stderr.write(`${line}\n`),
    });
    this.#all.add(server);
    void server.exited.then((why) => {
      this.#all.delete(server);
      this.#relay?.exited(server, why);
      if (this.#current === server && !this.#stopping && !server.stopping) {
        this.#current = undefined;
        this.#say(
          this.#style.red(`the server exited (${why}); pier dev starts it again when a file changes`),
        );
      }
    });
    return server;
  }

  async #checkTypes(files: readonly string[]) {
    const checker = this.#checker;
    if (checker === undefined) return undefined;
    return checker.check(files.filter((file) => /\.[cm]?tsx?$/.test(file)));
  }

  #schedule(): void {
    if (this.#stopping) return;
    if (this.#reloading !== undefined) {
      this.#again = true;
      return;
    }
    this.#reloading = this.#reload().finally(() => {
      this.#reloading = undefined;
      if (this.#again) {
        this.#again = false;
        this.#schedule();
      }
    });
  }

  async #reload(): Promise<void> {
    const started = Date.now();
    const keep = this.#current === undefined ? 'waiting for a change' : 'keeping the last good server';
    const built = await this.#build();
    if (built === undefined) return this.#say(this.#style.red(`build failed; ${keep}`));
    const types = await this.#checkTypes(this.#inputs);
    if (types !== undefined && types.errorCount > 0) {
      this.#io.stderr.write(types.text);
      return this.#say(
        this.#style.red(`${types.errorCount} type error${types.errorCount === 1 ? '' : 's'}; ${keep}`),
      );
    }
    if (this.#stopping) return;
    const old = this.#current;
    const next = this.#spawn(built);
    let transport: Transport;
    try {
      transport = await withTimeout(
        next.ready,
        20_000,
        'the new server did not say it was listening within 20 s',
      );
    } catch (error) {
      void next.kill();
      return this.#say(this.#style.red(`${messageOf(error)}; ${keep}`));
    }
    let detail = '';
    if (transport.kind === 'stdio') {
      if (this.#relay === undefined) {
        this.#relay = new StdioRelay(this.#io.stdin, this.#io.stdout, (line) => this.#say(line));
        this.#relay.onClientEnd = this.#endOnClientEnd;
        this.#relay.attach(next);
      } else {
        try {
          const report = await this.#relay.swap(next);
          const { added, removed } = report.tools;
          detail = [
            added.length > 0 ? `tools added: ${added.join(', ')}` : '',
            removed.length > 0 ? `tools removed: ${removed.join(', ')}` : '',
            report.changed.length > 0
              ? `sent ${report.changed.map((m) => m.replace('notifications/', '')).join(', ')}`
              : '',
          ]
            .filter(Boolean)
            .join('; ');
        } catch (error) {
          void next.kill();
          return this.#say(this.#style.red(`${messageOf(error)}; ${keep}`));
        }
      }
    }
    this.#current = next;
    this.#transport = transport;
    if (old !== undefined) void old.stop(this.#options.graceMs);
    this.#say(
      `${this.#style.green('reloaded')} in ${Date.now() - started} ms${detail === '' ? '' : ` (${detail})`}`,
    );
  }

  async #shutdown(code: number): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#watcher?.close();
    await Promise.all([...this.#all].map((server) => server.kill()));
    await this.#builder?.dispose();
    await this.#checker?.close();
    this.#done(code);
  }

  #say(line: string): void {
    this.#io.stderr.write(`${this.#style.dim('pier dev:')} ${line}\n`);
  }
}

function withEntry(argv: readonly string[], entry: string): string[] {
  // The inner pier dev gets the absolute entry: the Inspector may start it from another directory.
  const split = argv.indexOf('--');
  const head = split === -1 ? [...argv] : argv.slice(0, split);
  const tail = split === -1 ? [] : argv.slice(split);
  const positional = head.findIndex((arg) => !arg.startsWith('-'));
  if (positional !== -1) head.splice(positional, 1);
  return [entry, ...head, ...tail];
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new CliError('DEV_FAILED', message)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
