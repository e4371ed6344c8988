// `pnpm ab` runs a server program as it is: Pier in Fastify (pier-mount.ts with BENCH_MOUNT=fastify).
process.env.BENCH_MOUNT = 'fastify';
await import('./pier-mount.js');
