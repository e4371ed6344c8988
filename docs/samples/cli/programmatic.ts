// pier as a library: main() runs a command in-process, with the streams, environment and directory it is
// given, and resolves with the exit code. Here: what `pier install cursor` would write (nothing is
// written with --dry-run; the secret is masked), then a command line with three mistakes.
import { Readable, Writable } from 'node:stream';
import { type Io, main } from '@pier/cli';

function collector(): Writable & { text: string } {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stream.text += String(chunk);
      done();
    },
  }) as Writable & { text: string };
  stream.text = '';
  return stream;
}

const io = (): Io & { stdout: { text: string }; stderr: { text: string } } => ({
  stdout: collector(),
  stderr: collector(),
  stdin: Readable.from([]),
  env: { HOME: '/home/ada' },
  cwd: '/home/ada/weather',
});

const preview = io();
const args = ['--dry-run', '--json', '--name', 'weather', '--env', 'API_KEY=sk-live-0123456789abcdef'];
const code = await main(
  ['install', 'cursor', ...args, '--', 'node', '/home/ada/weather/dist/main.js'],
  preview,
);
console.log(`exit ${code}`);
console.log(preview.stdout.text);

const typos = io();
console.log(`exit ${await main(['install', 'cursr', '--nmae', 'weather', '--env', 'API KEY'], typos)}`);
console.log(typos.stderr.text);
