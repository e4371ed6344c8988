// What a generated project installs. The @pier/* packages are versioned together with create-pier (one
// changesets group), so create-pier's own version is the Pier version it scaffolds.
import { readFileSync } from 'node:fs';

const own = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** `^<create-pier's version>`: the Pier release this create-pier was published with. */
export const PIER_RANGE = `^${own.version}`;
export const CREATE_PIER_VERSION = own.version;

/** Everything else, at versions that run on Node 20.19. */
export const TOOL_VERSIONS = {
  zod: '^4.6.7',
  typescript: '~5.9.3',
  vitest: '^4.1.12',
  // Named although vitest brings one: Vite 8 transforms TypeScript with oxc, which leaves standard
  // decorators in place, and Node 20 cannot parse them. Vite 7 lowers them with esbuild.
  vite: '^7.1.0',
  '@types/node': '^20.19.0',
} as const;
