// The shared bad-input table against every way of serving Pier on Node: each answers as the node listener
// does — the same status, the same JSON body, the same `Allow`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSentUnder, BAD_INPUT_CASES, BAD_INPUT_LIMIT, type BadInputCase } from './bad-input-table.js';
import { send } from './http.js';
import { MOUNTS, type Mounted, mount } from './mounts.js';
import { tableServer } from './servers.js';

const mounted = new Map<string, Mounted>();

beforeAll(async () => {
  for (const name of MOUNTS) {
    mounted.set(name, await mount(name, tableServer(), { maxBodyBytes: BAD_INPUT_LIMIT, sessions: true }));
  }
});
afterAll(async () => {
  await Promise.all([...mounted.values()].map((each) => each.close()));
});

function ask(where: Mounted, test: BadInputCase) {
  return send(`${where.origin}${where.prefix}${test.path}`, {
    method: test.method,
    headers: test.headers,
    ...(test.body !== undefined && { body: test.body }),
    ...(test.chunked === true && { chunked: true }),
  });
}

describe('one table of bad input, answered alike by the listener and every adapter', () => {
  it.each(BAD_INPUT_CASES)('$name → $status', async (test) => {
    const reference = await ask(mounted.get('listener') as Mounted, test);
    expect(reference.status).toBe(test.status);
    expect(reference.headers['content-type']).toMatch(/^application\/json/);
    expect(reference.json).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
    for (const name of MOUNTS.slice(1)) {
      const answer = await ask(mounted.get(name) as Mounted, test);
      const where = mounted.get(name) as Mounted;
      expect({ mount: name, status: answer.status, body: answer.json }).toEqual({
        mount: name,
        status: reference.status,
        body: asSentUnder(reference.json, where.prefix),
      });
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.headers.allow).toBe(reference.headers.allow);
    }
  });

  it('still serves a good call everywhere after the table', async () => {
    for (const where of mounted.values()) {
      const answer = await send(where.mcp, {
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      });
      expect({ mount: where.name, status: answer.status }).toEqual({ mount: where.name, status: 200 });
    }
  });
});
