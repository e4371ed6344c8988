import { access, constants } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, defineServer } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { httpTransport } from '@pier/transport-http';

const health = healthPlugin({
  checks: [
    {
      name: 'scratch-dir',
      critical: true,
      // Throwing is fine: it is reported as unhealthy with the error's message.
      check: async () => {
        await access(tmpdir(), constants.W_OK);
        return { status: 'healthy' };
      },
    },
    {
      name: 'upstream',
      critical: false, // its outage degrades the server; it never takes it out of rotation
      timeoutMs: 200,
      check: async ({ signal }) => {
        const res = await fetch('http://127.0.0.1:9/', { signal }); // nothing listens on port 9
        return res.ok ? { status: 'healthy' } : { status: 'degraded', message: `HTTP ${res.status}` };
      },
    },
  ],
});

const server = createServer(defineServer({ name: 'weather', version: '1.0.0', plugins: [health] }), {
  logLevel: 'error',
  handleSignals: false,
});
const { url } = await server.listen(httpTransport({ port: 0 }));

for (const path of ['/health/ready', '/health/live']) {
  const response = await fetch(new URL(path, url));
  console.log(path, response.status, await response.text());
}
await server.close();
const after = await fetch(new URL('/health/ready', url)).catch((error: Error) => error.message);
console.log('after close:', typeof after === 'string' ? after : after.status);
