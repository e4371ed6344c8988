// The module-resolution hook behind transport-redirect.ts (runs on node's loader thread).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Next = (specifier: string, context: unknown) => Promise<{ url: string }>;

/**
 * Package name → the saved `dist/` it loads from: `PIER_REDIRECTS` (JSON, `{"@pier/core": DIR}`), and
 * `PIER_TRANSPORT_HTTP_DIST` for `@pier/transport-http`. A package's subpath exports (`@pier/core/transport`)
 * come from the same directory, so that one program never mixes two builds of a package.
 */
const redirects: Record<string, string> = JSON.parse(process.env.PIER_REDIRECTS ?? '{}');
if (process.env.PIER_TRANSPORT_HTTP_DIST !== undefined) {
  redirects['@pier/transport-http'] = process.env.PIER_TRANSPORT_HTTP_DIST;
}

export async function resolve(
  specifier: string,
  context: unknown,
  next: Next,
): Promise<{ url: string; shortCircuit?: boolean }> {
  if (specifier.startsWith('@pier/')) {
    const slash = specifier.indexOf('/', 6);
    const name = slash === -1 ? specifier : specifier.slice(0, slash);
    const dir = redirects[name];
    if (dir !== undefined) {
      const file = slash === -1 ? 'index.js' : `${specifier.slice(slash + 1)}.js`;
      return { url: pathToFileURL(join(dir, file)).href, shortCircuit: true };
    }
  }
  return next(specifier, context);
}
