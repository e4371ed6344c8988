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
