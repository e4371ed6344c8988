#!/usr/bin/env node
// `npm create pier@latest my-server` / `pnpm create pier my-server` / `create-pier my-server --yes`.
import { relative } from 'node:path';
import type { Answers } from './answers.js';
import { HELP, parseFlags } from './args.js';
import { CreatePierError } from './errors.js';
import { assertWritable, createProject } from './generate.js';
import { resolveAnswers, terminalAsk } from './questions.js';
import { CREATE_PIER_VERSION } from './versions.js';

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof CreatePierError)) throw error;
  process.stderr.write(`create-pier: ${error.message}\n`);
  process.exitCode = 1;
}

async function main(argv: readonly string[]): Promise<void> {
  const flags = parseFlags(argv);
  if (flags.help) return void process.stdout.write(HELP);
  if (flags.version) return void process.stdout.write(`${CREATE_PIER_VERSION}\n`);
  // A directory given up front is checked before any question is asked.
  if (flags.directory !== undefined) assertWritable(flags.directory, flags.force);
  const interactive = !flags.yes && process.stdin.isTTY === true && process.stdout.isTTY === true;
  if (!flags.yes && !interactive) {
    process.stderr.write('create-pier: no terminal to ask on: taking the defaults (as with --yes)\n');
  }
  const terminal = interactive ? terminalAsk() : undefined;
  let resolved: Awaited<ReturnType<typeof resolveAnswers>>;
  try {
    resolved = await resolveAnswers(flags, terminal?.ask);
  } finally {
    terminal?.close();
  }
  const { directory, answers } = resolved;
  const created = await createProject(directory, answers, { force: flags.force, install: flags.install });
  process.stdout.write(nextSteps(relative(process.cwd(), created.directory) || '.', answers, flags.install));
}

function nextSteps(where: string, answers: Answers, installed: boolean): string {
  const pm = answers.packageManager;
  const runtime = answers.runtime ?? 'node';
  const framework = answers.framework ?? 'none';
  const features = [
    ...(runtime === 'node' ? [] : [{ bun: 'Bun', deno: 'Deno', workers: 'Cloudflare Workers' }[runtime]]),
    ...(framework === 'none'
      ? []
      : [`mounted in ${{ express: 'Express', fastify: 'Fastify', hono: 'Hono' }[framework]}`]),
    answers.template === 'decorators' ? 'a decorated class' : 'plain objects',
    runtime === 'node'
      ? { stdio: 'stdio', http: 'streamable HTTP', both: 'stdio and streamable HTTP' }[answers.transport]
      : 'streamable HTTP',
    ...(answers.health && (answers.transport !== 'stdio' || runtime !== 'node') ? ['health endpoints'] : []),
    ...(answers.config && runtime !== 'workers' ? ['@pier/config'] : []),
  ];
  const serves =
    runtime === 'workers'
      ? 'wrangler dev: MCP on http://127.0.0.1:8787/mcp'
      : runtime !== 'node'
        ? `serves MCP on http://127.0.0.1:3000/mcp with ${runtime === 'bun' ? 'Bun' : 'Deno'}`
        : answers.transport === 'http'
          ? 'builds, then serves MCP on http://127.0.0.1:3000/mcp'
          : 'builds, then serves MCP over stdio';
  const steps = [
    ...(where === '.' ? [] : [`cd ${where}`]),
    ...(installed ? [] : [`${pm} install`]),
    `${pm} test      # passes before you change a line`,
    `${pm} start     # ${serves}`,
    ...(runtime === 'workers' ? [`${pm} run deploy  # wrangler deploy`] : []),
  ];
  return `\nCreated ${answers.name}: a Pier MCP server (${features.join(', ')}).\n\nNext:\n${steps.map((s) => `  ${s}`).join('\n')}\n`;
}
