// `pier` in-process: `main(argv, io)` runs a command with the streams, environment and directory you give
// it, and resolves with the exit code. Nothing is thrown; errors are printed on `io.stderr`.
import { PassThrough } from 'node:stream';
import { main } from '@pier/cli';

async function pier(argv: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const out = new PassThrough().on('data', (chunk) => (stdout += chunk));
  const err = new PassThrough().on('data', (chunk) => (stderr += chunk));
  const code = await main(argv, {
    stdout: out,
    stderr: err,
    stdin: new PassThrough(),
    env: { API_KEY: 'sk-live-0123456789abcdef' },
    cwd,
  });
  return { code, stdout, stderr };
}

// What `pier install` would add to this project's .cursor/mcp.json: nothing is written (--dry-run), and
// the key is masked in the output.
const install = 'install cursor --scope project --name notes --env API_KEY --dry-run --json --';
const planned = await pier([...install.split(' '), 'node', 'dist/main.js'], '/srv/notes-server');
console.log(planned.code, JSON.parse(planned.stdout));

// A typo is a usage error: exit code 2, and a suggestion on stderr.
const typo = await pier('instal cursor'.split(' '), '/srv/notes-server');
console.log(typo.code, typo.stderr.trim());
