// The questions create-pier asks, their flags, their defaults, and how an answer is checked.
import { CreatePierError } from './errors.js';

export const TRANSPORTS = ['stdio', 'http', 'both'] as const;
export const TEMPLATES = ['decorators', 'plain'] as const;
export const PACKAGE_MANAGERS = ['npm', 'pnpm'] as const;
export const RUNTIMES = ['node', 'bun', 'deno', 'workers'] as const;
/** Existing Node frameworks Pier can be mounted in (`none`: Pier's own listener). */
export const FRAMEWORKS = ['none', 'express', 'fastify', 'hono'] as const;

export type Transport = (typeof TRANSPORTS)[number];
export type Template = (typeof TEMPLATES)[number];
export type PackageManager = (typeof PACKAGE_MANAGERS)[number];
export type Runtime = (typeof RUNTIMES)[number];
export type Framework = (typeof FRAMEWORKS)[number];

/** Everything a project is made from. */
export interface Answers {
  /** The package name (npm rules), also the server's name. */
  readonly name: string;
  /**
   * Where the server runs: `node`, or a web-standard `fetch` handler on `bun`, `deno` or Cloudflare
   * `workers` (those serve streamable HTTP only). Default `node`.
   */
  readonly runtime?: Runtime;
  /** On Node with HTTP: mounted in an Express 5, Fastify 5 or Hono 4 app. Default `none`. */
  readonly framework?: Framework;
  readonly transport: Transport;
  /** `@pier/plugin-health`; only with an HTTP transport. */
  readonly health: boolean;
  /** `@pier/config` for the settings; else `node:util` parseArgs (Workers: bindings, never config). */
  readonly config: boolean;
  readonly template: Template;
  readonly packageManager: PackageManager;
}

/** The defaults `--yes` takes (the name defaults to the directory's). */
export const DEFAULTS: Required<Omit<Answers, 'name' | 'packageManager'>> = {
  runtime: 'node',
  framework: 'none',
  transport: 'stdio',
  health: true,
  config: true,
  template: 'decorators',
};

/** npm's rules for a new package name: lowercase, URL-safe, at most 214 characters, optionally scoped. */
const PACKAGE_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

export function checkName(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > 214) return 'a package name has at most 214 characters';
  if (!PACKAGE_NAME.test(name)) {
    return `"${name}" is not a valid package name: lowercase letters, digits, - . _ ~ (optionally @scope/name)`;
  }
  return undefined;
}

/** The package manager that runs `create-pier`: `pnpm create pier` says so in its user agent. */
export function detectPackageManager(env: NodeJS.ProcessEnv = process.env): PackageManager {
  return env.npm_config_user_agent?.startsWith('pnpm/') ? 'pnpm' : 'npm';
}

export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new CreatePierError('OPTIONS_INVALID', `--${flag} must be ${allowed.join(', ')} (got "${value}")`);
}
