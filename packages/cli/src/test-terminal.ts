// Test helper (excluded from the build): a command in a real pseudo-terminal, driven like a person at the
// keyboard. util-linux's `script` allocates the pty (no native module to build): what the test writes goes
// to the terminal's input, and everything the program shows comes back; `-e` passes on its exit code.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';

export interface Terminal {
  readonly child: ChildProcess;
  /** Everything the terminal showed so far, ANSI escapes included. */
  screen(): string;
  /** Waits (bounded) until `text` appears after what earlier waits matched; resolves with the match. */
  waitFor(text: string | RegExp, ms?: number): Promise<string>;
  /** Types `keys` (a line needs its `\r`, Ctrl-C is `\u0003`). */
  type(keys: string): void;
  /** Resolves with the program's exit code. */
  readonly exited: Promise<number | null>;
  /** Stops `script` (and the program under it) by its PID. */
  kill(): void;
}

/** Installs `script` (Debian package bsdutils) when it is missing, or throws how to get it. */
export function ensureScript(): void {
  const has = () => {
    try {
      execFileSync('sh', ['-c', 'command -v script'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (has()) return;
  const how = 'apt-get update && apt-get install -y bsdutils';
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    throw new Error(`the terminal tests need util-linux's script: ${how} (as root)`);
  }
  execFileSync('sh', ['-c', how], { stdio: 'ignore', timeout: 240_000 });
  if (!has()) throw new Error(`script is still missing after ${how}`);
}

/** Runs `argv` in a new pseudo-terminal (80×24) with `env`. */
export function inTerminal(argv: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): Terminal {
  ensureScript();
  const command = argv.map(shellQuote).join(' ');
  const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
    env: { TERM: 'xterm-256color', COLUMNS: '80', LINES: '24', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(cwd !== undefined && { cwd }),
  });
  let shown = '';
  let cursor = 0;
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    shown += chunk.toString('utf8');
    for (const wake of [...waiters]) wake();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    screen: () => shown,
    waitFor(text, ms = 20_000) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const rest = shown.slice(cursor);
          const match =
            typeof text === 'string' ? (rest.includes(text) ? text : undefined) : text.exec(rest)?.[0];
          if (match === undefined) return false;
          cursor += rest.indexOf(match) + match.length;
          clearTimeout(timer);
          waiters.delete(look);
          resolve(match);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          reject(
            new Error(`the terminal never showed ${String(text)} within ${ms} ms; it showed:\n${shown}`),
          );
        }, ms);
        if (!look()) waiters.add(look);
      });
    },
    type(keys) {
      child.stdin?.write(keys);
    },
    exited,
    kill() {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(child.pid, 'SIGKILL');
      }
    },
  };
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
