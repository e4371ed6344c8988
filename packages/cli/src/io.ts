// What a command reads and writes: streams, environment, working directory. Injected so that tests and
// embedders can run commands in-process; the `pier` bin passes the real process's.
import type { Readable, Writable } from 'node:stream';

/** The process a command runs in. */
export interface Io {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly stdin: Readable & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** ANSI styles, on only for a terminal and never with `NO_COLOR` (https://no-color.org) or `TERM=dumb`. */
export interface Style {
  readonly on: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  const on =
    stream.isTTY === true &&
    (env.NO_COLOR === undefined || env.NO_COLOR === '') &&
    env.TERM !== 'dumb' &&
    (env.FORCE_COLOR === undefined || env.FORCE_COLOR !== '0');
  const wrap = (open: number, close: number) => (text: string) =>
    on ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    on,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/** Strips ANSI escapes: the width of what a terminal shows. */
export function visibleLength(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what is stripped
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

/** A plain table: a header row, aligned columns, cells already styled. Empty rows print `(none)`. */
export function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  style: Style,
): string {
  if (rows.length === 0) return `  ${style.dim('(none)')}\n`;
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => visibleLength(row[column] ?? ''))),
  );
  const line = (cells: readonly string[]) =>
    `  ${cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell + ' '.repeat((widths[column] ?? 0) - visibleLength(cell)),
      )
      .join('  ')}`.trimEnd();
  return `${[line(headers.map((h) => style.bold(h))), ...rows.map(line)].join('\n')}\n`;
}

/**
 * Shows that something is under way once it takes longer than a second: a spinner on a terminal, one
 * line otherwise (both on stderr, so stdout stays the command's answer). `done()` clears it.
 */
export function progress(io: Io, label: string): { update(label: string): void; done(): void } {
  const tty = io.stderr.isTTY === true;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let current = label;
  let frame = 0;
  let shown = false;
  let spinner: NodeJS.Timeout | undefined;
  const start = setTimeout(() => {
    shown = true;
    if (!tty) {
      io.stderr.write(`pier: ${current}…\n`);
      return;
    }
    spinner = setInterval(() => {
      io.stderr.write(`\r\u001b[2K${frames[frame++ % frames.length]} ${current}…`);
    }, 80);
    spinner.unref();
  }, 1_000);
  start.unref();
  return {
    update(next) {
      current = next;
      if (shown && !tty) io.stderr.write(`pier: ${current}…\n`);
    },
    done() {
      clearTimeout(start);
      if (spinner !== undefined) clearInterval(spinner);
      if (shown && tty) io.stderr.write('\r\u001b[2K');
    },
  };
}

/** Runs `work` with {@link progress} shown while it lasts. */
export async function withProgress<T>(io: Io, label: string, work: () => Promise<T>): Promise<T> {
  const shown = progress(io, label);
  try {
    return await work();
  } finally {
    shown.done();
  }
}

/** Prints a command's help on stdout; its exit code (0). */
export function printHelp(io: Io, text: string): 0 {
  io.stdout.write(text);
  return 0;
}
