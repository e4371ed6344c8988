// The open-loop generator behind limits-overhead's latency figures, run as the bench runs it (its own
// process, the compiled program) against a real node:http server: every request is sent, each to the URL
// of its slice, and a failure is counted with its reason, never dropped. No timing is asserted.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as OpenLoop from './load/open-loop.js';

const BUILT = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'load', 'open-loop.js');
const { interleavedChild, stopOpenLoop, targetOf } = (await import(BUILT)) as typeof OpenLoop;

const arrivals: string[] = [];
const server = createServer((req, res) => {
  arrivals.push(req.url ?? '');
  req.resume();
  req.on('end', () => {
    res.writeHead(req.url === '/fails' ? 500 : 200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  stopOpenLoop();
  await new Promise((resolve) => server.close(resolve));
});

describe('the open-loop generator', () => {
  it('gives each URL its slices in turn, always in the same order', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((index) => targetOf(index, 2, 3))).toEqual([0, 0, 1, 1, 2, 2, 0, 0]);
  });

  it('sends every request to the URL of its slice and counts failures with their reasons', {
    timeout: 30_000,
  }, async () => {
    const result = await interleavedChild({
      urls: [`${base}/ok`, `${base}/fails`],
      rate: 500,
      seconds: 0.4,
      sliceSeconds: 0.1,
      warmupSeconds: 0,
    });
    const [ok, fails] = result.targets;
    expect(ok?.latencies).toHaveLength(200);
    expect(ok?.failed).toBe(0);
    expect(fails?.latencies).toHaveLength(0);
    expect(fails?.failed).toBe(200);
    expect(result.errors).toEqual(['HTTP 500']);
    // Slices of 50 requests, URL after URL (arrival order within a slice may vary by a request or two).
    expect(arrivals).toHaveLength(400);
    expect(arrivals.slice(0, 40).every((url) => url === '/ok')).toBe(true);
    expect(arrivals.slice(60, 90).every((url) => url === '/fails')).toBe(true);
  });
});
