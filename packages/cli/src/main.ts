// `pier <command>`: dispatch, help, and the one place where errors become exit codes.
import { readFileSync } from 'node:fs';
import { closest } from './args.js';
import { CliError } from './errors.js';
import { type Io, processIo } from './io.js';

type Command = (argv: readonly string[], io: Io) => Promise<number>;

// Each command is loaded when it runs: `pier install` or `pier --help` never loads the MCP client or
// esbuild (a start three times faster).
const COMMANDS: Record<string, () => Promise<Command>> = {
  dev: async () => (await import('./dev/command.js')).devCommand,
  inspect: async () => (await import('./inspect.js')).inspectCommand,
  call: async () => (await import('./call.js')).callCommand,
  install: async () => (await import('./install.js')).installCommand,
  doctor: async () => (await import('./doctor/command.js')).doctorCommand,
};

export const HELP = `Usage: pier <command> [options]

Commands:
  dev [entry] [-- server args…]       run the server from TypeScript source, reload it on change
  inspect <url | -- command args…>    server info, eras, tools, resources, templates and prompts
  call <tool> [key=value…] <url | -- command args…>   call a tool and print its result
  install <client> [--name N] [--env K=V…]   add this server to claude-desktop, claude-code, cursor or vscode
  doctor <url> [--login]              walk what a hosted client does to connect and sign in; name what fails

Run pier <command> --help for a command's options.

Exit codes: 0 ok, 1 a failure was found (or the server could not be reached), 2 usage error.
Colour only on a terminal; NO_COLOR turns it off.
`;

export function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/**
 * Runs `pier` with `argv` (without `node` and the script) and resolves with its exit code: 0 ok, 1 a
 * failure found, 2 a usage error. Errors are printed on `io.stderr`, never thrown.
 */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      const topic = command === 'help' ? rest[0] : undefined;
      const load = topic === undefined ? undefined : COMMANDS[topic];
      if (load !== undefined) return await (await load())(['--help'], io);
      (command === undefined ? io.stderr : io.stdout).write(HELP);
      return command === undefined ? 2 : 0;
    }
    if (command === '--version' || command === '-v') {
      io.stdout.write(`${version()}\n`);
      return 0;
    }
    const load = COMMANDS[command];
    if (load === undefined) {
      const near = closest(command, Object.keys(COMMANDS));
      throw new CliError(
        'USAGE',
        `unknown command "${command}"${near === undefined ? '' : ` (did you mean ${near}?)`}; commands: ${Object.keys(COMMANDS).join(', ')}`,
      );
    }
    return await (await load())(rest, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr.write(`pier: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr.write(
      `pier: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}
