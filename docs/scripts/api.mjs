// Generates the API reference (docs/api/) from the .d.ts files the packages publish (their dist/), with
// TypeDoc and typedoc-plugin-markdown, so the reference shows exactly what a user's editor sees.
// Run by `build` and `dev`; the packages must be built first (turbo's ^build does it in the check).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, Converter, ReflectionKind } from 'typedoc';

const docs = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(docs, '..');
const out = join(docs, 'api');

/**
 * Every public entry point, named as users import it: each published package under packages/ (its
 * package.json not `private`), and each of its `exports` subpaths that has types. The order is the
 * sidebar's: core first, then the other packages by name.
 */
function publishedPackages() {
  return readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'packages', entry.name, 'package.json')))
    .map((entry) => ({
      dir: entry.name,
      manifest: JSON.parse(readFileSync(join(root, 'packages', entry.name, 'package.json'), 'utf8')),
    }))
    .filter(({ manifest }) => manifest.private !== true)
    .sort(
      (a, b) =>
        (a.manifest.name === '@pier/core' ? -1 : b.manifest.name === '@pier/core' ? 1 : 0) ||
        a.manifest.name.localeCompare(b.manifest.name),
    );
}

const packages = publishedPackages();

// turbo builds a package before the docs only when the docs depend on it: a published package missing
// from docs/package.json's devDependencies would be documented from a stale or absent dist/.
const docsManifest = JSON.parse(readFileSync(join(docs, 'package.json'), 'utf8'));
const unlisted = packages.filter(
  ({ manifest }) => docsManifest.devDependencies?.[manifest.name] === undefined,
);
if (unlisted.length > 0) {
  console.error(
    `docs: the API reference covers every published package; add ${unlisted
      .map(({ manifest }) => `"${manifest.name}": "workspace:*"`)
      .join(
        ', ',
      )} to docs/package.json devDependencies (so the packages build before the site), then run pnpm install.`,
  );
  process.exit(1);
}

/** [import path, .d.ts file relative to the repository] for every entry point. */
const entries = packages.flatMap(({ dir, manifest }) =>
  Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
    const types = typeof target === 'object' && target !== null ? target.types : undefined;
    if (typeof types !== 'string') return []; // ./package.json and the like
    return [
      [
        `${manifest.name}${subpath === '.' ? '' : subpath.slice(1)}`,
        `packages/${dir}/${types.replace(/^\.\//, '')}`,
      ],
    ];
  }),
);

const missing = entries.filter(([, file]) => !existsSync(join(root, file)));
if (missing.length > 0) {
  console.error(
    `docs: the API reference is generated from the built packages; missing ${missing.map(([, f]) => f).join(', ')}.\n` +
      'Build them first: npx -y pnpm@10.34.9 build (or turbo run build --filter=@pier/docs...)',
  );
  process.exit(1);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const app = await Application.bootstrapWithPlugins({
  entryPoints: entries.map(([, file]) => join(root, file)),
  entryPointStrategy: 'resolve',
  tsconfig: join(docs, 'tsconfig.api.json'),
  plugin: ['typedoc-plugin-markdown'],
  out,
  readme: 'none',
  name: 'API reference',
  excludePrivate: true,
  excludeInternal: true,
  excludeExternals: true,
  externalPattern: ['**/node_modules/**'],
  disableSources: true,
  hideGenerator: true,
  hidePageHeader: true,
  hideBreadcrumbs: true,
  entryFileName: 'index',
  groupOrder: ['Functions', 'Variables', 'Classes', 'Interfaces', 'Type Aliases', '*'],
  // One page per package: the reference stays searchable and a page holds what one import gives.
  outputFileStrategy: 'modules',
  useCodeBlocks: true,
  expandObjects: false,
  parametersFormat: 'table',
  interfacePropertiesFormat: 'table',
  classPropertiesFormat: 'table',
  typeDeclarationFormat: 'table',
  enumMembersFormat: 'table',
  // Links between pages are relative .md links, which VitePress resolves and checks.
  publicPath: '/api/',
  sanitizeComments: true,
  validation: { notExported: false, invalidLink: false, unusedMergeModuleWith: false },
  logLevel: 'Warn',
});

// Modules are named after their file (`core/dist/index`); name them as users import them.
// (TypeDoc drops a trailing `/index`; core's transport entry names itself with a @module tag.)
const names = new Map(
  entries.map(([name, file]) => [
    relative(join(root, 'packages'), join(root, file)).replace(/(\/index)?\.d\.ts$/, ''),
    name,
  ]),
);
app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
  for (const module of context.project.getChildrenByKind(ReflectionKind.Module)) {
    const name = names.get(module.name);
    if (name !== undefined) module.name = name;
  }
});

const project = await app.convert();
if (!project) {
  console.error('docs: TypeDoc could not convert the packages’ declarations');
  process.exit(1);
}
await app.generateOutputs(project);
if (app.logger.hasErrors()) process.exit(1);

// The sidebar: one entry per package, in the order above.
const sidebar = entries.map(([name]) => {
  if (!existsSync(join(out, `${name}.md`))) throw new Error(`docs: no API page for ${name}`);
  return { text: name, link: `/api/${name}` };
});
writeFileSync(join(out, 'sidebar.json'), `${JSON.stringify(sidebar, null, 2)}\n`);
const index = readFileSync(join(out, 'index.md'), 'utf8');
writeFileSync(
  join(out, 'index.md'),
  `${index.replace(/^# .*$/m, '# API reference')}\nGenerated from the \`.d.ts\` files each package publishes. The guides explain when to use what: start with [Getting started](../guide/getting-started.md).\n`,
);
console.error(`docs: API reference for ${entries.length} entry points in ${relative(root, out)}/`);
