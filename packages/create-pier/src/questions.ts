// Turns flags into answers: a flag answers its question; the rest are asked on a terminal, or take
// their defaults with --yes or without a terminal.
import { basename, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  type Answers,
  checkName,
  DEFAULTS,
  detectPackageManager,
  FRAMEWORKS,
  type Framework,
  oneOf,
  PACKAGE_MANAGERS,
  RUNTIMES,
  TEMPLATES,
  TRANSPORTS,
} from './answers.js';
import type { Flags } from './args.js';
import { CreatePierError } from './errors.js';

/** Asks one question; resolves with the answer as typed ('' for the default). */
export type Ask = (question: string) => Promise<string>;

const DEFAULT_DIRECTORY = 'my-pier-server';

/** The directory and the answers. `ask` is undefined when nothing may be asked (`--yes`, no terminal). */
export async function resolveAnswers(
  flags: Flags,
  ask: Ask | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ directory: string; answers: Answers }> {
  const directory =
    flags.directory ??
    (ask === undefined
      ? DEFAULT_DIRECTORY
      : await askUntil(ask, 'Project directory', DEFAULT_DIRECTORY, (v) =>
          v === '' ? 'the directory is empty' : undefined,
        ));
  const name = flags.name ?? basename(resolve(directory));
  const nameProblem = checkName(name);
  if (nameProblem !== undefined) {
    throw new CreatePierError('OPTIONS_INVALID', `${nameProblem}; pass --name <name> to choose another`);
  }
  const runtime =
    flags.runtime !== undefined
      ? oneOf('runtime', flags.runtime, RUNTIMES)
      : await choose(ask, 'Runtime: node, bun, deno or workers', RUNTIMES, DEFAULTS.runtime);
  let framework: Framework =
    flags.framework !== undefined ? oneOf('framework', flags.framework, FRAMEWORKS) : DEFAULTS.framework;
  if (runtime !== 'node') {
    if (framework !== 'none') {
      throw new CreatePierError(
        'OPTIONS_INVALID',
        `--framework ${framework} mounts Pier in a Node app; on ${runtime} the server is a fetch handler ` +
          '(pass --runtime node, or leave --framework out)',
      );
    }
    if (flags.transport !== undefined && flags.transport !== 'http') {
      throw new CreatePierError(
        'OPTIONS_INVALID',
        `--transport ${flags.transport}: on ${runtime} the server is a fetch handler and serves streamable ` +
          'HTTP only (pass --transport http, or leave it out)',
      );
    }
  }
  if (framework !== 'none' && flags.transport !== undefined && flags.transport !== 'http') {
    throw new CreatePierError(
      'OPTIONS_INVALID',
      `--framework ${framework} serves MCP over HTTP inside the app: --transport must be http (or left out)`,
    );
  }
  const transport =
    runtime !== 'node' || framework !== 'none'
      ? 'http'
      : flags.transport !== undefined
        ? oneOf('transport', flags.transport, TRANSPORTS)
        : await choose(ask, 'Transport: stdio, http or both', TRANSPORTS, DEFAULTS.transport);
  if (runtime === 'node' && transport === 'http' && flags.framework === undefined) {
    framework = await choose(
      ask,
      'Mount in an app of your own: none, express, fastify or hono',
      FRAMEWORKS,
      DEFAULTS.framework,
    );
  }
  if (flags.health === true && transport === 'stdio') {
    throw new CreatePierError(
      'OPTIONS_INVALID',
      '--health needs --transport http or both: health endpoints are HTTP routes',
    );
  }
  const health =
    transport === 'stdio'
      ? false
      : (flags.health ??
        (await confirm(
          ask,
          'Health endpoints (/health, /health/ready) with @pier/plugin-health?',
          DEFAULTS.health,
        )));
  if (runtime === 'workers' && flags.config === true) {
    throw new CreatePierError(
      'OPTIONS_INVALID',
      '--config reads flags and the process environment; a Worker gets its settings from bindings ' +
        '(wrangler.toml [vars], `wrangler secret put API_KEY`): leave --config out',
    );
  }
  const config =
    runtime === 'workers'
      ? false
      : (flags.config ??
        (await confirm(ask, 'Settings from flags and environment with @pier/config?', DEFAULTS.config)));
  const template =
    flags.template !== undefined
      ? oneOf('template', flags.template, TEMPLATES)
      : await choose(ask, 'Template: decorators (a class) or plain (objects)', TEMPLATES, DEFAULTS.template);
  const detected = detectPackageManager(env);
  const packageManager =
    flags.packageManager !== undefined
      ? oneOf('pm', flags.packageManager, PACKAGE_MANAGERS)
      : await choose(ask, 'Package manager: npm or pnpm', PACKAGE_MANAGERS, detected);
  return {
    directory,
    answers: { name, runtime, framework, transport, health, config, template, packageManager },
  };
}

/** A readline question on the terminal (closed by the caller). */
export function terminalAsk(): { ask: Ask; close: () => void } {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  return { ask: (question) => rl.question(question), close: () => rl.close() };
}

async function choose<T extends string>(
  ask: Ask | undefined,
  question: string,
  allowed: readonly T[],
  fallback: T,
): Promise<T> {
  if (ask === undefined) return fallback;
  const answer = await askUntil(ask, question, fallback, (value) =>
    (allowed as readonly string[]).includes(value) ? undefined : `answer ${allowed.join(', ')}`,
  );
  return answer as T;
}

async function confirm(ask: Ask | undefined, question: string, fallback: boolean): Promise<boolean> {
  if (ask === undefined) return fallback;
  const answer = await askUntil(ask, `${question} (y/n)`, fallback ? 'y' : 'n', (value) =>
    /^(y|yes|n|no)$/i.test(value) ? undefined : 'answer y or n',
  );
  return /^y/i.test(answer);
}

/** Asks until `problem` finds none (three tries); an empty answer is the default. */
async function askUntil(
  ask: Ask,
  question: string,
  fallback: string,
  problem: (value: string) => string | undefined,
): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const value = (await ask(`${question} [${fallback}] `)).trim() || fallback;
    const wrong = problem(value);
    if (wrong === undefined) return value;
    process.stdout.write(`  ${wrong}\n`);
  }
  throw new CreatePierError('OPTIONS_INVALID', `no valid answer to "${question}"`);
}
