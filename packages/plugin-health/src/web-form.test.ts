// Node transports answer the health routes from their plain form (no web Request or Response, so no fetch
// implementation loaded at the first probe); web runtimes call the web-standard handler. Both must give
// the same answer: the same server is asked both ways here.
import { afterEach, describe, expect, it } from 'vitest';
import { healthPlugin } from './index.js';
import { send } from './test-http.js';
import { listenWith, type RunningPier } from './test-pier.js';

const running: RunningPier[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((pier) => pier.close()));
});

describe('the web form of each health route', () => {
  // (Other methods never reach a route over node: the transport answers them 405 itself.)
  it.each(['GET', 'HEAD'])('answers %s as the node transport does', async (method) => {
    const pier = await listenWith([
      healthPlugin({
        exposeDetails: false,
        checks: [
          { name: 'db', critical: true, check: () => ({ status: 'healthy' }) },
          { name: 'cache', critical: false, check: () => ({ status: 'degraded' }) },
        ],
      }),
    ]);
    running.push(pier);
    for (const path of ['/health', '/health/ready', '/health/live']) {
      const route = pier.server.routes.find((r) => r.path === path);
      expect(route?.plain, path).toBeTypeOf('function');
      const overNode = await send(pier.base + path, { method });
      const web = await route?.handler(new Request(pier.base + path, { method }));
      expect(web?.status, `${method} ${path}`).toBe(overNode.status);
      for (const name of ['content-type', 'cache-control', 'content-length']) {
        expect(web?.headers.get(name) ?? undefined, `${method} ${path} ${name}`).toBe(overNode.headers[name]);
      }
      expect(await web?.text(), `${method} ${path}`).toBe(overNode.text);
    }
  });
});
