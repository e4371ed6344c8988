// `pnpm ab` runs a server program as it is: Pier in Express (pier-mount.ts with BENCH_MOUNT=express).
process.env.BENCH_MOUNT = 'express';
await import('./pier-mount.js');
