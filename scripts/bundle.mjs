// `node ../../scripts/bundle.mjs src/index.ts [src/transport.ts …]`, run in a package after
// `tsc --emitDeclarationOnly`: writes the package's JavaScript as bundled modules into `dist/`.
//
// Why: node's ESM loader pays a fixed cost per file (resolve, read, compile, link, evaluate), which for
// core's ~22 files was most of what importing core cost at a cold start (bench/PROFILE.md). One build of
// every entry point together, with code splitting, keeps each module in exactly one chunk, so a class
// reached through two entry points (`@pier/core` and `@pier/core/transport`) is one class. A dynamic
// `import()` in the sources stays a separate chunk, loaded when the code reaches it, as before.
// Dependencies and peers stay external (`packages: 'external'`): they resolve from the user's install.
// The declarations are tsc's, one `.d.ts` per source file as before; this script writes only `.js`.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';

const entryPoints = process.argv.slice(2);
if (entryPoints.length === 0) {
  console.error('usage: node scripts/bundle.mjs <entry.ts>…  (run in the package directory)');
  process.exit(2);
}

const outdir = 'dist';
const result = await build({
  entryPoints,
  outdir,
  outbase: 'src',
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: false,
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
});

// The JavaScript tsc (or an earlier build) left in dist/ goes; the declarations stay.
for (const entry of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
  if (entry.isFile() && /\.(?:js|js\.map)$/.test(entry.name)) {
    rmSync(join(entry.parentPath, entry.name));
  }
}
for (const file of result.outputFiles) {
  writeFileSync(file.path, file.contents);
}
const written = result.outputFiles.map((file) => relative(process.cwd(), file.path));
console.log(`bundle: ${written.join(', ')}`);
