// Middleware runs around requests, Hono/Koa style: call next() to go on and get the result, throw a
// RequestRefusedError to refuse, or change the arguments and the result on the way.
import { type PierPlugin, RequestRefusedError } from '@pier/core';

export function guardPlugin(options: { readonly callsPerClient: number }): PierPlugin {
  const calls = new Map<string, number>();
  return {
    name: 'guard',
    setup(ctx) {
      // A quota per caller: over HTTP the refusal is a 429 with Retry-After, before any handler runs.
      ctx.use('tools/call', async (request, next) => {
        const count = (calls.get(request.principal) ?? 0) + 1;
        calls.set(request.principal, count);
        if (count > options.callsPerClient) {
          throw new RequestRefusedError(`over the quota of ${options.callsPerClient} calls`, {
            http: { status: 429, headers: { 'retry-after': '60' } },
          });
        }
        return next();
      });
      // Change the arguments before the handler sees them.
      ctx.use('tools/call', async (request, next) => {
        const text = request.arguments?.text;
        if (typeof text === 'string') request.arguments = { ...request.arguments, text: text.trim() };
        return next();
      });
      // Filter a list by what each entry is: destructive tools are not offered to anonymous callers.
      ctx.use('tools/list', async (request, next) => {
        const result = await next();
        if (request.auth !== undefined) return result;
        const tools = (result.tools as Record<string, unknown>[]).filter((entry) => {
          const target = request.declarationOf(entry);
          return target?.kind !== 'tool' || target.declaration.annotations?.destructiveHint !== true;
        });
        return { ...result, tools };
      });
    },
  };
}
