// `pnpm auth-overhead [seconds] [rounds] [--cached] [--seam] [before=DIR]`: what `@pier/plugin-auth` adds to one tools/call (issue 17).
// The same Pier bench server three times — auth off; `authPlugin()` with `jwt()`; the same with the
// verified-token cache off — loaded in turn with tools/call echo in both eras, the order flipped every
// round, every request carrying a JWT access token (ES256 or RS256, `typ: at+jwt`, for that server's
// resource) signed by a small issuer in this process that serves the key set and counts its fetches.
// Reports the server's CPU per request and req/s, and the added cost against auth off (median of the
// per-round ratios). Then an unknown-`kid` flood: 100 tokens signed with keys the issuer does not publish,
// sent at once, and the key set fetches they caused (target: at most one per cooldown, 30 s by default).
// Last, in this process: the CPU time of the plugin's authenticator alone per request (the work auth adds
// to a call, measured in a loop like otel-overhead.ts: steady on a shared machine, unlike a load test).
// `--in-process` runs only that part and the flood; `--cached` loads only the cache-warm set-ups (the
// target's); `before=DIR` adds a fourth server with the plugin built from another revision (a saved
// `dist/` inside bench/, e.g. dist/.before/plugin-auth), loaded beside the others in every round;
// `--seam` adds a server whose authenticator accepts everyone at once (the transport's seam alone).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HttpAuthenticator, PluginContext } from '@pier/core';
import { generateKeyPair } from 'jose';
import { type Alg, startIssuer } from './harness/auth-issuer.js';
import { stopLoader, throughput } from './harness/measure.js';
import { type RunningServer, startServer } from './harness/process.js';
import { SERVERS } from './harness/servers.js';
import { median, pairedRatios, spread } from './harness/stats.js';
import { type Era, modernEcho } from './load/requests.js';

const numbers = process.argv
  .slice(2)
  .filter((arg) => /^\d+$/.test(arg))
  .map(Number);
const [seconds = 3, rounds = 3] = numbers;
const inProcessOnly = process.argv.includes('--in-process');
// `--cached`: only the cache-warm set-ups under load (the target's), not the ones without a token cache.
const cachedOnly = process.argv.includes('--cached');
const before = process.argv.find((arg) => arg.startsWith('before='))?.slice('before='.length);
// `BENCH_AUTH_MODULE=<file URL of a saved dist/index.js>`: another build of the plugin, here and in the
// servers (they inherit the environment), say the one before a change.
const { authPlugin, jwt } = (await import(
  process.env.BENCH_AUTH_MODULE ?? '@pier/plugin-auth'
)) as typeof import('@pier/plugin-auth');
const ERAS: readonly Era[] = ['modern', 'legacy'];

const issuerServer = await startIssuer();
const issuer = issuerServer.url;

const pier = SERVERS.find((spec) => spec.id === 'pier');
if (pier === undefined) throw new Error('the pier bench server is not declared');

function token(
  alg: Alg,
  server: RunningServer,
  kid?: string,
  key?: Parameters<typeof issuerServer.token>[3],
) {
  return issuerServer.token(alg, `${server.base}/mcp`, kid, key);
}

async function post(server: RunningServer, headers: Record<string, string>): Promise<number> {
  const request = modernEcho(1);
  const res = await fetch(`${server.base}/mcp`, {
    method: 'POST',
    headers: { ...request.headers, ...headers },
    body: request.body,
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  return res.status;
}

const running: RunningServer[] = [];
try {
  const off = await startServer({ ...pier, label: 'Pier, auth off' });
  running.push(off);
  const on = await startServer({ ...pier, env: { BENCH_AUTH_ISSUER: issuer } });
  running.push(on);
  const cold = await startServer({ ...pier, env: { BENCH_AUTH_ISSUER: issuer, BENCH_AUTH_CACHE: '0' } });
  running.push(cold);
  // `before=DIR`: the same as `on` with the plugin built from another revision (a saved `dist/`).
  const earlier =
    before === undefined
      ? undefined
      : await startServer({
          ...pier,
          env: {
            BENCH_AUTH_ISSUER: issuer,
            BENCH_AUTH_MODULE: pathToFileURL(resolve(before, 'index.js')).href,
          },
        });
  if (earlier !== undefined) running.push(earlier);
  // `--seam`: an authenticator that accepts everyone at once with one constant caller, no plugin: what
  // the transport's authentication seam costs by itself.
  const seam = process.argv.includes('--seam')
    ? await startServer({ ...pier, env: { BENCH_AUTH: 'constant' } })
    : undefined;
  if (seam !== undefined) running.push(seam);
  const bearer = async (alg: 'ES256' | 'RS256', server: RunningServer) => ({
    authorization: `Bearer ${await token(alg, server)}`,
  });
  const scenarios = [
    { label: 'auth off', server: off, headers: undefined },
    // The same bytes on the wire as an authenticated call, ignored: what the plugin adds, apart from the
    // cost of receiving an ~800-byte header, which any server pays for a bearer token.
    { label: 'auth off, same token sent (ignored)', server: off, headers: await bearer('ES256', on) },
    { label: 'JWT ES256, cache warm', server: on, headers: await bearer('ES256', on) },
    { label: 'JWT RS256, cache warm', server: on, headers: await bearer('RS256', on) },
    ...(seam === undefined
      ? []
      : [
          {
            label: 'constant authenticator (the seam alone)',
            server: seam,
            headers: await bearer('ES256', on),
          },
        ]),
    ...(earlier === undefined
      ? []
      : [
          {
            label: `JWT ES256, cache warm, ${before}`,
            server: earlier,
            headers: await bearer('ES256', earlier),
          },
          {
            label: `JWT RS256, cache warm, ${before}`,
            server: earlier,
            headers: await bearer('RS256', earlier),
          },
        ]),
    ...(cachedOnly
      ? []
      : [
          { label: 'JWT ES256, no token cache', server: cold, headers: await bearer('ES256', cold) },
          { label: 'JWT RS256, no token cache', server: cold, headers: await bearer('RS256', cold) },
        ]),
  ];
  // Correctness first: the protected servers refuse a request without a token and serve one with it.
  for (const server of [on, cold, ...(earlier === undefined ? [] : [earlier])]) {
    const refused = await post(server, {});
    const served = await post(server, await bearer('ES256', server));
    if (refused !== 401 || served !== 200) {
      throw new Error(`auth server ${server.base}: expected 401 then 200, got ${refused} and ${served}`);
    }
  }
  const cpu = new Map<string, number[]>();
  const rps = new Map<string, number[]>();
  const failures = new Map<string, number>();
  for (let round = 0; round < (inProcessOnly ? 0 : rounds); round++) {
    for (const era of ERAS) {
      const order = round % 2 === 0 ? scenarios : [...scenarios].reverse();
      for (const { label, server, headers } of order) {
        const sample = await throughput(
          server,
          { era },
          { seconds, warmupSeconds: 1, connections: 50, ...(headers && { headers }) },
        );
        const key = `${era} ${label}`;
        cpu.set(key, [...(cpu.get(key) ?? []), sample.cpuUsPerRequest]);
        rps.set(key, [...(rps.get(key) ?? []), sample.rps]);
        failures.set(key, (failures.get(key) ?? 0) + sample.errors + sample.non2xx);
        console.error(
          `round ${round + 1}: ${key}: ${Math.round(sample.rps)} req/s, ${Math.round(sample.cpuUsPerRequest)} µs/request, ${sample.errors + sample.non2xx} errors`,
        );
      }
    }
  }
  if (!inProcessOnly)
    console.log(
      `\n| era | setup | server CPU µs/call, median (min–max) | req/s, median | added CPU vs auth off | failed requests |`,
    );
  if (!inProcessOnly) console.log('| --- | --- | --- | --- | --- | --- |');
  for (const era of inProcessOnly ? [] : ERAS) {
    const base = cpu.get(`${era} auth off`) ?? [];
    const sameBytes = cpu.get(`${era} auth off, same token sent (ignored)`) ?? [];
    const addedTo = (values: number[], to: number[]) =>
      `${((median(pairedRatios(values, to)) - 1) * 100).toFixed(1)} %`;
    for (const { label } of scenarios) {
      const key = `${era} ${label}`;
      const values = cpu.get(key) ?? [];
      const { min, max } = spread(values);
      const added = label.startsWith('auth off')
        ? label === 'auth off'
          ? '—'
          : addedTo(values, base)
        : `${addedTo(values, base)} (${addedTo(values, sameBytes)} vs the same bytes)`;
      console.log(
        `| ${era} | ${label} | ${Math.round(median(values))} (${Math.round(min)}–${Math.round(max)}) | ${Math.round(median(rps.get(key) ?? []))} | ${added} | ${failures.get(key)} |`,
      );
    }
  }

  // The unknown-kid flood, twice in a row: 100 tokens each, all sent at once.
  const rogue = await generateKeyPair('ES256');
  for (const attempt of [1, 2]) {
    const before = issuerServer.fetches();
    const tokens = await Promise.all(
      Array.from({ length: 100 }, (_, i) => token('ES256', on, `rogue-${attempt}-${i}`, rogue.privateKey)),
    );
    const statuses = await Promise.all(tokens.map((t) => post(on, { authorization: `Bearer ${t}` })));
    const refused = statuses.filter((status) => status === 401).length;
    console.log(
      `\nunknown-kid flood ${attempt}: ${refused}/100 refused with 401, ${issuerServer.fetches() - before} key set fetch(es)`,
    );
  }
  await inProcess();
} finally {
  stopLoader();
  for (const server of running) await server.stop();
  await issuerServer.close();
}

/** The authenticator of an authPlugin for the local issuer, as Pier's transport calls it. */
function authenticatorOf(cacheTokens: number): HttpAuthenticator {
  let captured: HttpAuthenticator | undefined;
  const quiet = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
  authPlugin({
    resource: 'http://127.0.0.1:9/mcp',
    authorizationServers: [issuer],
    verifier: jwt({ jwksUri: `${issuer}/jwks`, cacheTokens }),
  }).setup({
    logger: quiet,
    addRoute() {},
    use() {},
    setAuthenticator(authenticator: HttpAuthenticator) {
      captured = authenticator;
    },
  } as unknown as PluginContext);
  if (captured === undefined) throw new Error('authPlugin() set no authenticator');
  return captured;
}

async function inProcess(): Promise<void> {
  const audience = { base: 'http://127.0.0.1:9' } as RunningServer;
  console.log('\n| setup | authenticator CPU µs per request, median (min–max) | calls |');
  console.log('| --- | --- | --- |');
  for (const [label, alg, cacheTokens, calls] of [
    ['JWT ES256, cache warm', 'ES256', 1000, 100_000],
    ['JWT RS256, cache warm', 'RS256', 1000, 100_000],
    ['JWT ES256, no token cache', 'ES256', 0, 1_000],
    ['JWT RS256, no token cache', 'RS256', 0, 1_000],
  ] as const) {
    const authenticator = authenticatorOf(cacheTokens);
    // Each request as node's HTTP parser hands it over: its own strings, decoded from the bytes received
    // (a string used again would keep V8's cached hash and regexp state, and flatter the figure).
    const head = Buffer.from(
      [
        'Host',
        '127.0.0.1:9',
        'Content-Type',
        'application/json',
        'Accept',
        'application/json, text/event-stream',
        'MCP-Protocol-Version',
        '2026-07-28',
        'Mcp-Method',
        'tools/call',
        'Mcp-Name',
        'echo',
        'Authorization',
        `Bearer ${await token(alg, audience)}`,
        'Content-Length',
        '250',
      ].join('\n'),
      'latin1',
    );
    const request = () => {
      const rawHeaders = head.toString('latin1').split('\n');
      const headers: Record<string, string> = {};
      for (let i = 0; i < rawHeaders.length; i += 2) {
        headers[(rawHeaders[i] as string).toLowerCase()] = rawHeaders[i + 1] as string;
      }
      const request: Parameters<HttpAuthenticator['authenticate']>[0] = {
        url: '/mcp',
        method: 'POST',
        header: (name) => headers[name],
      };
      return request;
    };
    // Warm: the key set fetched, the key imported, the token verified once (and cached, where it is).
    for (let i = 0; i < 200; i++) {
      const outcome = await authenticator.authenticate(request());
      if (!('authInfo' in outcome)) throw new Error(`${label}: refused ${JSON.stringify(outcome)}`);
    }
    // As the transport calls it: a promise is awaited, an outcome given at once is not. Less the cost of
    // building the requests, measured alone in the same way.
    const cpu = async (authenticate: boolean) => {
      const start = process.cpuUsage();
      for (let i = 0; i < calls; i++) {
        const req = request();
        if (!authenticate) continue;
        const outcome = authenticator.authenticate(req);
        if (outcome instanceof Promise) await outcome;
      }
      const used = process.cpuUsage(start);
      return (used.user + used.system) / calls;
    };
    // Five pairs, each loop then the building alone right after: the median of the differences.
    await cpu(false);
    const added: number[] = [];
    for (let pair = 0; pair < 5; pair++) added.push((await cpu(true)) - (await cpu(false)));
    const { min, max } = spread(added);
    console.log(
      `| ${label} | ${median(added).toFixed(2)} (${min.toFixed(2)}–${max.toFixed(2)}) | 5 × ${calls} |`,
    );
  }
}
