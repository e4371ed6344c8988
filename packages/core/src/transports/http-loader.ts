// `@pier/transport-http` is an optional peer: the `listen({ transport: 'streamable-http' })` shortcut loads it
// on demand, from where core itself resolves packages (an installed optional peer is linked there). It is
// never imported statically; an application that imports `httpTransport` itself needs none of this.
import { PierError } from '../errors.js';
import type { PierTransport } from './host.js';

const PACKAGE = '@pier/transport-http';

/** What core needs of the package: its transport factory. */
interface HttpTransportPackage {
  httpTransport(options: Record<string, unknown>): PierTransport;
}

/** Loads `@pier/transport-http` and makes its transport from `options` (validated there). */
export async function loadHttpTransport(options: Record<string, unknown>): Promise<PierTransport> {
  let loaded: Partial<HttpTransportPackage>;
  try {
    loaded = (await import(PACKAGE)) as Partial<HttpTransportPackage>;
  } catch (error) {
    if (!isPackageMissing(error)) throw error;
    throw new PierError(
      'TRANSPORT_NOT_INSTALLED',
      `listen({ transport: 'streamable-http' }) needs the ${PACKAGE} package: install ${PACKAGE} (npm install ${PACKAGE})`,
      { cause: error },
    );
  }
  if (typeof loaded.httpTransport !== 'function') {
    throw new PierError(
      'TRANSPORT_NOT_INSTALLED',
      `the installed ${PACKAGE} does not export httpTransport: install a version that matches @pier/core`,
    );
  }
  return loaded.httpTransport(options);
}

// Only the package itself missing counts; a missing dependency *of* the package is a different failure.
function isPackageMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return (
    typeof message === 'string' && (message.includes(`'${PACKAGE}'`) || message.includes(`"${PACKAGE}"`))
  );
}
