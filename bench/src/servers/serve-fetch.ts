// Serves a web-standard fetch handler on 127.0.0.1:PORT with the runtime's own server: `Bun.serve` on Bun,
// `Deno.serve` on Deno, `@hono/node-server` (the usual way to run a fetch handler on Node) on Node.
import { createAdaptorServer } from '@hono/node-server';

type Fetch = (request: Request) => Promise<Response> | Response;

/** Which runtime runs this process. */
export function runtimeName(): 'bun' | 'deno' | 'node' {
  if ((globalThis as { Bun?: unknown }).Bun !== undefined) return 'bun';
  if ((globalThis as { Deno?: unknown }).Deno !== undefined) return 'deno';
  return 'node';
}

export function serveFetch(fetch: Fetch, port: number): void {
  const runtime = runtimeName();
  if (runtime === 'bun') {
    const bun = (globalThis as unknown as { Bun: { serve(options: object): unknown } }).Bun;
    bun.serve({ hostname: '127.0.0.1', port, fetch });
  } else if (runtime === 'deno') {
    const deno = (globalThis as unknown as { Deno: { serve(options: object, fetch: Fetch): unknown } }).Deno;
    deno.serve({ hostname: '127.0.0.1', port, onListen() {} }, fetch);
  } else {
    createAdaptorServer({ fetch }).listen(port, '127.0.0.1');
  }
}
