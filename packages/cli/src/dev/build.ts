// The server's TypeScript source bundled by esbuild into one ES module (dependencies stay imports), in
// the project's `node_modules/.cache/pier-dev/` so that they resolve from the project as they do from
// its source. Rebuilds are incremental; the build reports every project file it read, which is what
// pier dev watches. `import.meta.url`, `dirname` and `filename` keep pointing at the source file.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BuildContext, context, formatMessages, type Message, type Plugin } from 'esbuild';

export interface BuildResult {
  readonly ok: boolean;
  /** The bundle to run (written even when… never: only when `ok`). */
  readonly outfile: string;
  /** Absolute paths of the project's files the bundle was built from (node_modules left out). */
  readonly inputs: readonly string[];
  /** esbuild's errors, formatted for a terminal (file, line, column, the code under a caret). */
  readonly errors: string;
  readonly warnings: string;
}

export interface Builder {
  build(): Promise<BuildResult>;
  dispose(): Promise<void>;
}

export async function createBuilder(entry: string, projectRoot: string, color: boolean): Promise<Builder> {
  const outdir = join(projectRoot, 'node_modules', '.cache', 'pier-dev');
  const outfile = join(outdir, 'server.mjs');
  const ctx: BuildContext = await context({
    entryPoints: [entry],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node}`,
    sourcemap: 'inline',
    metafile: true,
    write: true,
    logLevel: 'silent',
    absWorkingDir: projectRoot,
    plugins: [sourceLocation()],
  });
  return {
    async build() {
      try {
        const result = await ctx.rebuild();
        const inputs = Object.keys(result.metafile?.inputs ?? {})
          .filter((input) => !input.includes('node_modules/') && !input.includes(':'))
          .map((input) => resolve(projectRoot, input));
        return {
          ok: true,
          outfile,
          inputs,
          errors: '',
          warnings: await format(result.warnings, 'warning', color),
        };
      } catch (error) {
        const errors = (error as { errors?: Message[] }).errors ?? [];
        const text = errors.length > 0 ? await format(errors, 'error', color) : String(error);
        // The files of a failed build are still worth watching: the error is in one of them.
        const inputs = errors.flatMap((message) =>
          message.location ? [resolve(projectRoot, message.location.file)] : [],
        );
        return { ok: false, outfile, inputs, errors: text, warnings: '' };
      }
    },
    dispose: () => ctx.dispose(),
  };
}

async function format(messages: Message[], kind: 'error' | 'warning', color: boolean): Promise<string> {
  if (messages.length === 0) return '';
  return (await formatMessages(messages, { kind, color, terminalWidth: 100 })).join('');
}

/** Rewrites `import.meta.url` / `dirname` / `filename` in each project file to its source location. */
function sourceLocation(): Plugin {
  return {
    name: 'pier-dev-source-location',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
        if (args.path.includes(`${'/'}node_modules${'/'}`)) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta')) return undefined;
        const contents = source
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path));
        const loader = /\.[cm]?tsx?$/.test(args.path)
          ? args.path.endsWith('x')
            ? 'tsx'
            : 'ts'
          : args.path.endsWith('x')
            ? 'jsx'
            : 'js';
        return { contents, loader, resolveDir: dirname(args.path) };
      });
    },
  };
}

/** `src/main.ts` relative to the project, for messages. */
export function shortPath(projectRoot: string, path: string): string {
  const rel = relative(projectRoot, path);
  return rel.startsWith('..') ? path : rel;
}
