// `pier doctor <url>`: flags, progress, and the report for a person or a script.
import { milliseconds, parseFlags } from '../args.js';
import { type Io, printHelp, progress, styleFor } from '../io.js';
import { doctor } from './doctor.js';
import type { DoctorReport } from './steps.js';

export const DOCTOR_HELP = `Usage: pier doctor <url> [options]

Walks what a hosted MCP client (claude.ai, ChatGPT, a browser-based inspector) does to connect and sign
in, and prints each step as passed or failed, with what it saw and what to change:

  reach, era-2025, era-2026, content-type   the server answers, in both protocol eras
  cors                                      a browser client's preflight (Origin: --origin)
  challenge, prm, prm-resource              the 401 and its resource_metadata; RFC 9728 metadata
  as-metadata, pkce, registration, scopes   RFC 8414 / OpenID discovery; S256; DCR or CIMD
  login, authenticated, audience            with --login: code + PKCE, tools/list with the token, aud

Options:
  --login            sign in (authorization code + PKCE, loopback redirect): prints the URL to open
  --open             open that URL in the browser
  --client-id <id>   sign in as a client registered by hand (redirect URI http://127.0.0.1/callback, any port)
  --origin <origin>  the browser origin to check CORS for (default https://claude.ai: only a warning
                     when the server has no CORS at all; with --origin it is a failure)
  --timeout <ms>     how long --login waits for the sign-in (default 300000)
  --json             print the report as JSON ({ url, ok, steps: [{ id, title, status, evidence, fix? }] })
  -h, --help         this help

Exit codes: 0 no step failed (warnings allowed); 1 a step failed; 2 usage error.
`;

export async function doctorCommand(argv: readonly string[], io: Io): Promise<number> {
  const { flags, positionals, issues } = parseFlags('doctor', argv, {
    login: { type: 'boolean' },
    open: { type: 'boolean' },
    'client-id': { type: 'string' },
    origin: { type: 'string' },
    timeout: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (flags.help) return printHelp(io, DOCTOR_HELP);
  const [given, ...extra] = positionals;
  if (given === undefined) issues.add('which server? pier doctor https://example.com/mcp');
  else if (!/^https?:\/\//i.test(given) || !URL.canParse(given))
    issues.add(`"${given.slice(0, 60)}" is not an http(s) URL`);
  if (extra.length > 0) issues.add(`one URL (got ${positionals.join(' ').slice(0, 80)})`);
  if (flags.origin !== undefined && !/^https?:\/\/[^/]+$/.test(flags.origin)) {
    issues.add(
      `--origin is a scheme and host, such as https://claude.ai (got "${flags.origin.slice(0, 60)}")`,
    );
  }
  if (flags.open === true && flags.login !== true)
    issues.add('--open opens the sign-in page of --login: give --login too');
  if (flags['client-id'] !== undefined && flags.login !== true)
    issues.add('--client-id is the client --login signs in as: give --login too');
  const timeoutMs = milliseconds(issues, 'timeout', flags.timeout, 300_000);
  issues.throwIfAny();
  if (given === undefined) return 2; // recorded in issues: thrown above
  const err = styleFor(io.stderr, io.env);
  const shown = progress(io, 'checking');
  let report: DoctorReport;
  try {
    report = await doctor(new URL(given), {
      ...(flags.origin !== undefined && { origin: flags.origin }),
      onProgress: (label) => shown.update(label),
      ...(flags.login === true && {
        login: {
          onUrl: (url: string) => {
            shown.done();
            io.stderr.write(`${err.bold('Open this URL to sign in:')}\n  ${err.cyan(url)}\n`);
          },
          open: flags.open === true,
          timeoutMs,
          ...(flags['client-id'] !== undefined && { clientId: flags['client-id'] }),
        },
      }),
    });
  } finally {
    shown.done();
  }
  if (flags.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout.write(render(report, styleFor(io.stdout, io.env)));
  return report.ok ? 0 : 1;
}

function render(report: DoctorReport, style: ReturnType<typeof styleFor>): string {
  const marks = {
    pass: style.green('✓'),
    fail: style.red('✗'),
    warn: style.yellow('!'),
    skip: style.dim('-'),
  };
  const out = [`${style.bold('pier doctor')} ${report.url}`, ''];
  for (const step of report.steps) {
    out.push(
      `${marks[step.status]} ${step.status === 'skip' ? style.dim(step.title) : step.title} ${style.dim(`[${step.id}]`)}`,
    );
    for (const line of step.evidence) out.push(`    ${style.dim(line)}`);
    if (step.fix !== undefined && (step.status === 'fail' || step.status === 'warn'))
      out.push(`    ${style.bold('fix:')} ${step.fix}`);
  }
  const failed = report.steps.filter((s) => s.status === 'fail').map((s) => s.id);
  out.push(
    '',
    failed.length === 0 ? style.green('No step failed.') : style.red(`Failed: ${failed.join(', ')}`),
  );
  return `${out.join('\n')}\n`;
}
