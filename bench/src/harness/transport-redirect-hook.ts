// The module-resolution hook behind transport-redirect.ts (runs on node's loader thread).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Next = (specifier: string, context: unknown) => Promise<{ url: string }>;

export async function resolve(
  specifier: string,
  context: unknown,
  next: Next,
): Promise<{ url: string; shortCircuit?: boolean }> {
  const dir = process.env.PIER_TRANSPORT_HTTP_DIST;
  if (dir !== undefined && specifier === '@pier/transport-http') {
    return { url: pathToFileURL(join(dir, 'index.js')).href, shortCircuit: true };
  }
  return next(specifier, context);
}
