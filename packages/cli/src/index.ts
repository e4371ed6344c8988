export type { CliErrorCode } from './errors.js';
export { CliError } from './errors.js';
export type { Io } from './io.js';
export { main } from './main.js';
