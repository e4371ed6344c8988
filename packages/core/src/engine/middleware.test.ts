// The middleware chain as `compose` builds it: onion order, refusing, changing arguments and results,
// `await next()` passing the result through, and the mistakes it names (next twice, no result) — whether a
// middleware is an async function, returns next()'s promise or answers without it.
import { describe, expect, it } from 'vitest';
import { PierError } from '../errors.js';
import { compose, type Middleware, type MiddlewareContext, middlewareEntry } from './middleware.js';
import type { JsonObject } from './wire.js';

type Call = MiddlewareContext & { trail: string[] };

function callOf(method = 'tools/call'): Call {
  return { method, arguments: { n: 1 }, trail: [] } as unknown as Call;
}

function chainOf(middlewares: Middleware[], method = 'tools/call', match: string | string[] = '*') {
  const entries = middlewares.map((middleware) => middlewareEntry(match, middleware, 'the test', 'use'));
  return compose<Call>(method, entries, async (call) => {
    call.trail.push('handler');
    return { n: (call.arguments as JsonObject).n as number };
  });
}

describe('compose', () => {
  it('runs the handler directly when no middleware matches', async () => {
    const run = async () => ({ ok: true });
    const entries = [middlewareEntry('prompts/get', () => ({}), 'the test', 'use')];
    expect(compose('tools/call', entries, run)).toBe(run);
  });

  it('runs middleware in onion order, registration order outermost first', async () => {
    const layer =
      (name: string): Middleware =>
      async (ctx, next) => {
        (ctx as Call).trail.push(`${name} in`);
        const result = await next();
        (ctx as Call).trail.push(`${name} out`);
        return result;
      };
    const call = callOf();
    await expect(chainOf([layer('a'), layer('b'), layer('c')])(call)).resolves.toEqual({ n: 1 });
    expect(call.trail).toEqual(['a in', 'b in', 'c in', 'handler', 'c out', 'b out', 'a out']);
  });

  it('lets a middleware change the arguments and replace the result, sync or async', async () => {
    const call = callOf();
    const doubled: Middleware = (ctx, next) => {
      ctx.arguments = { n: ((ctx.arguments as JsonObject).n as number) * 2 };
      return next();
    };
    const plusOne: Middleware = async (_ctx, next) => {
      const result = await next();
      return { n: (result.n as number) + 1 };
    };
    await expect(chainOf([plusOne, doubled])(call)).resolves.toEqual({ n: 3 });
  });

  it('passes the result through a middleware that awaits next() and returns nothing', async () => {
    const timing: Middleware = async (_ctx, next) => {
      await next();
    };
    const sync: Middleware = (_ctx, next) => next().then(() => undefined);
    const passing: Middleware = (_ctx, next) => next();
    await expect(chainOf([timing, sync, passing, timing, passing])(callOf())).resolves.toEqual({ n: 1 });
    await expect(chainOf([passing, timing])(callOf())).resolves.toEqual({ n: 1 });
    // next() called only after an await of its own, over a level that hands next()'s promise back.
    const late: Middleware = async (_ctx, next) => {
      await Promise.resolve();
      await next();
    };
    await expect(chainOf([late, passing])(callOf())).resolves.toEqual({ n: 1 });
    await expect(chainOf([late, late, sync])(callOf())).resolves.toEqual({ n: 1 });
  });

  it('answers without the handler when a middleware returns a result of its own', async () => {
    const call = callOf();
    const cached: Middleware = () => ({ cached: true });
    await expect(chainOf([cached])(call)).resolves.toEqual({ cached: true });
    expect(call.trail).toEqual([]);
  });

  it('refuses with what a middleware throws, sync or async, before the handler runs', async () => {
    const refusal = new PierError('REQUEST_REFUSED', 'no');
    const call = callOf();
    const syncThrow: Middleware = () => {
      throw refusal;
    };
    await expect(chainOf([syncThrow])(call)).rejects.toBe(refusal);
    await expect(chainOf([async () => Promise.reject(refusal)])(call)).rejects.toBe(refusal);
    expect(call.trail).toEqual([]);
  });

  it('lets a middleware catch a refusal from further in and answer instead', async () => {
    const refuse: Middleware = () => {
      throw new Error('inner');
    };
    const rescue: Middleware = async (_ctx, next) => {
      try {
        return await next();
      } catch {
        return { rescued: true };
      }
    };
    await expect(chainOf([rescue, refuse])(callOf())).resolves.toEqual({ rescued: true });
  });

  it('names a middleware that swallows a failure and returns nothing, not a deeper result', async () => {
    // The handler answers, the middleware around it fails, the outer one swallows that and returns
    // nothing: the handler's answer must not come back as if nothing had failed.
    const failing: Middleware = async (_ctx, next) => {
      await next();
      throw new Error('after the handler');
    };
    const swallowing: Middleware = async (_ctx, next) => {
      await next().catch(() => undefined);
    };
    const passing: Middleware = (_ctx, next) => next();
    await expect(chainOf([swallowing, passing, failing, passing])(callOf())).rejects.toThrow(
      /a middleware of tools\/call neither returned a result nor called next\(\)/,
    );
    await expect(chainOf([swallowing, failing])(callOf())).rejects.toThrow(
      /a middleware of tools\/call neither returned a result nor called next\(\)/,
    );
  });

  it('names a middleware that neither answers nor calls next(), or calls it twice', async () => {
    await expect(chainOf([() => undefined])(callOf())).rejects.toThrow(
      /neither returned a result nor called next\(\)/,
    );
    const twice: Middleware = async (_ctx, next) => {
      await next();
      return next();
    };
    await expect(chainOf([twice])(callOf())).rejects.toThrow(/next\(\) called more than once/);
    await expect(chainOf([() => 'text'])(callOf())).rejects.toThrow(/returned string, not a result object/);
    await expect(chainOf([() => [1]])(callOf())).rejects.toThrow(/returned object, not a result object/);
  });

  it('serves each call on its own: concurrent calls through one chain do not mix results', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowFirst: Middleware = async (ctx, next) => {
      if ((ctx.arguments as JsonObject).n === 1) await gate;
      await next();
    };
    const chain = chainOf([slowFirst, async (_ctx, next) => next()]);
    const first = callOf();
    const second = { ...callOf(), arguments: { n: 2 } } as Call;
    const answers = Promise.all([chain(first), chain(second)]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    await expect(answers).resolves.toEqual([{ n: 1 }, { n: 2 }]);
  });
});
