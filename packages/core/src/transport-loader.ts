// `@pier/transport-http` is an optional peer: loaded on demand, never imported statically.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HttpTransportModule } from './contract.js';
import { PierError } from './errors.js';

const PACKAGE = '@pier/transport-http';

/**
 * Loads `@pier/transport-http`: from core's own location first (where package managers link an
 * installed optional peer), then from the application's entry script and working directory, so that
 * workspaces and linked installs, where core cannot see the application's packages, work too; the
 * application may be the transport package itself.
 */
export async function loadHttpTransport(): Promise<HttpTransportModule> {
  let loaded: unknown;
  try {
    loaded = await import('@pier/transport-http');
  } catch (error) {
    if (!isPackageMissing(error)) throw error;
    loaded = await loadFromApplication();
  }
  if (typeof (loaded as Partial<HttpTransportModule>).startHttpTransport !== 'function') {
    throw new PierError(
      'TRANSPORT_NOT_INSTALLED',
      `the installed ${PACKAGE} does not export startHttpTransport: install a version that matches @pier/core`,
    );
  }
  return loaded as HttpTransportModule;
}

async function loadFromApplication(): Promise<unknown> {
  const starts = [process.argv[1] && dirname(resolve(process.argv[1])), process.cwd()];
  for (const start of starts) {
    const holder = start && nodeModulesHolding(start);
    if (holder) return import(pathToFileURL(createRequire(join(holder, 'index.js')).resolve(PACKAGE)).href);
  }
  throw new PierError(
    'TRANSPORT_NOT_INSTALLED',
    `listen({ transport: 'streamable-http' }) needs the ${PACKAGE} package: install @pier/transport-http (npm install @pier/transport-http)`,
  );
}

// Only the package itself missing counts; a missing dependency *of* the package is a different failure.
function isPackageMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return (
    typeof message === 'string' && (message.includes(`'${PACKAGE}'`) || message.includes(`"${PACKAGE}"`))
  );
}

// The nearest directory at or above `start` whose node_modules holds the package, the way ESM
// resolution looks (require() would also honour NODE_PATH, which pnpm points at its hidden hoist),
// or that is the package itself (its own tests and examples).
function nodeModulesHolding(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', PACKAGE, 'package.json'))) return dir;
    if (isThePackage(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function isThePackage(packageJson: string): boolean {
  try {
    return (JSON.parse(readFileSync(packageJson, 'utf8')) as { name?: unknown }).name === PACKAGE;
  } catch {
    return false;
  }
}
