// `pnpm ab` runs a server program as it is: Pier in front of an Express app (pier-mount.ts with
// BENCH_MOUNT=express-front).
process.env.BENCH_MOUNT = 'express-front';
await import('./pier-mount.js');
