// Run by `pnpm profile startup` in a fresh process: imports its arguments one after the other and
// prints how long each took (so each figure is what that module adds to the ones before it).
const times: Record<string, number> = {};
for (const specifier of process.argv.slice(2)) {
  const started = performance.now();
  await import(specifier);
  times[specifier] = performance.now() - started;
}
process.stdout.write(`${JSON.stringify({ times, sinceProcessStart: performance.now() })}\n`);
