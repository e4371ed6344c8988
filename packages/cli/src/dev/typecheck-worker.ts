// Runs in a worker thread of pier dev, so that type checking never stalls the relay: the project's own
// TypeScript (resolved from the project), its tsconfig.json, and an incremental builder program that
// re-checks only what a change can affect. Messages: `{ files }` in, `{ errorCount, text }` out.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type * as TS from 'typescript';

const { projectRoot, color } = workerData as { projectRoot: string; color: boolean };
const port = parentPort;
if (port === null) throw new Error('typecheck-worker runs as a worker thread');

let ts: typeof TS | undefined;
try {
  ts = createRequire(join(projectRoot, 'package.json'))('typescript') as typeof TS;
} catch {
  ts = undefined;
}

if (ts === undefined) {
  port.postMessage({ unavailable: `typescript is not installed in ${projectRoot}` });
} else {
  const checker = createChecker(ts);
  port.on('message', (message: { files: string[] }) => {
    try {
      port.postMessage(checker(message.files));
    } catch (error) {
      port.postMessage({ errorCount: 0, text: '', failed: String(error) });
    }
  });
  port.postMessage({ ready: true });
}

function createChecker(ts: typeof TS): (files: string[]) => { errorCount: number; text: string } {
  const configPath = ts.findConfigFile(projectRoot, ts.sys.fileExists, 'tsconfig.json');
  let options: TS.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
  };
  let configErrors: readonly TS.Diagnostic[] = [];
  if (configPath !== undefined) {
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, join(configPath, '..'));
    options = parsed.options;
    configErrors = read.error === undefined ? parsed.errors : [read.error];
  }
  options = {
    ...options,
    noEmit: true,
    incremental: false,
    composite: false,
    declaration: false,
    emitDeclarationOnly: false,
  };
  const host = ts.createCompilerHost(options, true);
  const cache = new Map<string, { version: string; file: TS.SourceFile }>();
  const immutable = (path: string) => path.includes('/node_modules/');
  const original = host.getSourceFile.bind(host);
  const getSourceFile: TS.CompilerHost['getSourceFile'] = (
    fileName,
    languageVersion,
    onError,
    shouldCreate,
  ) => {
    const cached = cache.get(fileName);
    if (cached !== undefined && immutable(fileName)) return cached.file;
    const text = ts.sys.readFile(fileName);
    if (text === undefined) return original(fileName, languageVersion, onError, shouldCreate);
    const version = createHash('sha1').update(text).digest('hex');
    if (cached !== undefined && cached.version === version) return cached.file;
    const file = ts.createSourceFile(fileName, text, languageVersion);
    (file as TS.SourceFile & { version: string }).version = version;
    cache.set(fileName, { version, file });
    return file;
  };
  // Assigned from a const: V8 allocates a function literal assigned straight to a property in the old
  // generation (scripts/check-structure.mjs, rule 4).
  host.getSourceFile = getSourceFile;
  const formatHost: TS.FormatDiagnosticsHost = {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => projectRoot,
    getNewLine: () => '\n',
  };
  let builder: TS.SemanticDiagnosticsBuilderProgram | undefined;
  return (files) => {
    builder = ts.createSemanticDiagnosticsBuilderProgram(files, options, host, builder, configErrors);
    const diagnostics = [
      ...builder.getConfigFileParsingDiagnostics(),
      ...builder.getOptionsDiagnostics(),
      ...builder.getGlobalDiagnostics(),
      ...builder.getSyntacticDiagnostics(),
      ...builder.getSemanticDiagnostics(),
    ].filter((d) => d.category === ts.DiagnosticCategory.Error);
    const text =
      diagnostics.length === 0
        ? ''
        : color
          ? ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost)
          : ts.formatDiagnostics(diagnostics, formatHost);
    return { errorCount: diagnostics.length, text };
  };
}
