import { PierError } from './errors.js';

/** Severity of a log line, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Structured fields written after the message. Never put a secret in them. */
export type LogFields = Readonly<Record<string, unknown>>;

/** Writes one line per event to stderr. Pier never logs to stdout. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger whose lines carry `scope` (a plugin name, say). */
  child(scope: string): Logger;
}

/** Where log lines go: anything with a `write(string)`, such as `process.stderr`. */
export interface LogStream {
  write(chunk: string): unknown;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Lowest level written. Default: `PIER_LOG_LEVEL` from the environment, else `info`. */
  readonly level?: LogLevel;
  /** Default `process.stderr`. Pier never writes logs to stdout: on stdio it carries the protocol. */
  readonly stream?: LogStream;
  /** Shown in brackets on every line, such as the server name. */
  readonly scope?: string;
  /** Environment read for `PIER_LOG_LEVEL`. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const LABEL: Record<LogLevel, string> = { debug: 'DEBUG', info: 'INFO ', warn: 'WARN ', error: 'ERROR' };

/** Whether `value` names a log level. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

/**
 * Creates the stderr logger Pier uses: one line per event, such as
 * `2026-11-22T05:00:00.000Z INFO  [weather] listening transport=stdio`.
 * Newlines inside a message or a field are escaped, so one event is always one line.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const env = options.env ?? runtimeProcess()?.env ?? {};
  const stream = options.stream ?? defaultStream();
  let level = options.level;
  let badEnvLevel: string | undefined;
  if (level === undefined) {
    const fromEnv = env.PIER_LOG_LEVEL?.trim().toLowerCase();
    if (isLogLevel(fromEnv)) level = fromEnv;
    else if (fromEnv) badEnvLevel = env.PIER_LOG_LEVEL;
  } else if (!isLogLevel(level)) {
    throw new PierError(
      'OPTIONS_INVALID',
      `logLevel must be one of ${LEVELS.join(', ')} (got ${JSON.stringify(level)})`,
    );
  }
  const logger = new LineLogger(stream, RANK[level ?? 'info'], options.scope);
  if (badEnvLevel !== undefined) {
    logger.warn(`PIER_LOG_LEVEL is not one of ${LEVELS.join(', ')}; using info`, { value: badEnvLevel });
  }
  return logger;
}

class LineLogger implements Logger {
  constructor(
    private readonly stream: LogStream,
    private readonly minRank: number,
    private readonly scope: string | undefined,
  ) {}

  debug(message: string, fields?: LogFields): void {
    this.write('debug', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.write('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.write('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.write('error', message, fields);
  }

  child(scope: string): Logger {
    return new LineLogger(this.stream, this.minRank, this.scope ? `${this.scope}/${scope}` : scope);
  }

  private write(level: LogLevel, message: string, fields: LogFields | undefined): void {
    if (RANK[level] < this.minRank) return;
    let line = `${new Date().toISOString()} ${LABEL[level]} `;
    if (this.scope) line += `[${this.scope}] `;
    line += oneLine(message);
    if (fields) {
      for (const [key, value] of Object.entries(fields)) {
        if (value !== undefined) line += ` ${oneLine(key)}=${formatValue(value)}`;
      }
    }
    try {
      this.stream.write(`${line}\n`);
    } catch {
      // A broken stderr must never take the server down.
    }
  }
}

function oneLine(text: string): string {
  return text.replace(/\r?\n|\r/g, '\\n');
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=\\]+$/.test(value) ? value : JSON.stringify(value);
  if (value instanceof Error) return JSON.stringify(value.message);
  if (
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    value === null ||
    typeof value === 'bigint'
  ) {
    return String(value);
  }
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return JSON.stringify(String(value));
  }
}

type RuntimeProcess = {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stderr?: { write?: unknown };
};

/** `process` where the runtime has one (Node, Bun, Deno; Workers with `nodejs_compat`). */
function runtimeProcess(): RuntimeProcess | undefined {
  return (globalThis as { process?: RuntimeProcess }).process;
}

/** `process.stderr`, or the console's error stream where there is none (one line per call). */
function defaultStream(): LogStream {
  const stderr = runtimeProcess()?.stderr;
  if (stderr !== undefined && typeof stderr.write === 'function') return stderr as LogStream;
  return { write: (line: string) => console.error(line.endsWith('\n') ? line.slice(0, -1) : line) };
}
