export type { ParsedArgs } from './parse-args.js';
export { parseArgs } from './parse-args.js';
