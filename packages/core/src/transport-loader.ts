// `@pier/transport-http` is an optional peer: loaded on demand, never imported statically.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HttpTransportModule } from './contract.js';
import { PierError } from './errors.js';

const PACKAGE = '@pier/transport-http';

/**
 * Loads `@pier/transport-http`: from core's own location first (where package managers link an
 * installed optional peer), then from the application's entry script and working directory, so that
 * workspaces and linked installs, where core cannot see the application's packages, work too.
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
  const bases = [process.argv[1], resolve(process.cwd(), 'index.js')];
  for (const base of bases) {
    if (!base) continue;
    let path: string;
    try {
      path = createRequire(resolve(base)).resolve(PACKAGE);
    } catch {
      continue;
    }
    return import(pathToFileURL(path).href);
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
