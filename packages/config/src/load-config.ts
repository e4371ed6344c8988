import { ConfigError } from './config-error.js';
import { formatHelp } from './help.js';
import { formatIssue } from './issues.js';
import { type ParseConfigOptions, parseEntries } from './parse-config.js';
import { type Config, type ConfigSpec, readSpec } from './spec.js';

/** Where `loadConfig` writes: anything with a `write(text)` method, such as `process.stderr`. */
export interface TextSink {
  write(text: string): unknown;
}

/** Options of {@link loadConfig}: the inputs of `parseConfig`, plus the program's I/O and help text. */
export interface LoadConfigOptions extends ParseConfigOptions {
  /** Diagnostics: one line per problem. Defaults to `process.stderr`. */
  readonly stderr?: TextSink;
  /** `--help` and `--version` output only. Defaults to `process.stdout`. */
  readonly stdout?: TextSink;
  /** Ends the program: 1 after problems, 0 after help or version. Defaults to `process.exit`. */
  readonly exit?: (code: number) => never;
  /** The program's name in the help's usage line. Defaults to the script's file name. */
  readonly name?: string;
  /** A paragraph under the usage line of the help. */
  readonly description?: string;
}

/**
 * Reads the configuration from argv and the environment and returns it typed and frozen.
 * On bad input it writes one `path (source): message` line per problem to stderr and exits with
 * code 1; `--help` prints help to stdout and exits 0, as does `--version` when a version is given.
 * A wrong spec throws a `ConfigError` with code `CONFIG_SPEC_INVALID`.
 *
 * @example
 * const config = loadConfig({
 *   apiKey: { schema: z.string().min(1), env: 'API_KEY', secret: true },
 *   port: { schema: z.number().int().default(3000), env: 'PORT' },
 * });
 * config.port; // number
 */
export function loadConfig<const Spec extends ConfigSpec>(
  spec: Spec,
  options: LoadConfigOptions = {},
): Config<Spec> {
  const entries = readSpec(spec);
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const result = parseEntries(entries, options);

  if (result.helpRequested || result.versionRequested) {
    const text = result.helpRequested
      ? formatHelp(entries, { name: options.name ?? scriptName(), ...describedBy(options) })
      : `${options.version}\n`;
    stdout.write(text);
    exit(0);
    throw new ConfigError(
      'CONFIG_EXIT_RETURNED',
      'loadConfig: exit(0) returned; it must end the program or throw',
    );
  }
  const lines = [...result.warnings, ...(result.ok ? [] : result.issues)].map(formatIssue);
  if (lines.length > 0) stderr.write(`${lines.join('\n')}\n`);
  if (!result.ok) {
    exit(1);
    throw new ConfigError('CONFIG_INVALID', 'invalid configuration', result.issues);
  }
  return result.config as Config<Spec>;
}

function describedBy(options: LoadConfigOptions): { description?: string; version?: string } {
  return {
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.version === undefined ? {} : { version: options.version }),
  };
}

/** `node ./bin/weather.js` → `weather`. */
function scriptName(): string {
  const script = process.argv[1];
  if (script === undefined || script === '') return 'program';
  const base = script.split(/[\\/]/).pop() ?? script;
  return base.replace(/\.[cm]?[jt]s$/, '') || 'program';
}
