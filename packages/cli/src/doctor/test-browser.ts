// Test helper (excluded from the build): a person in a browser, played with plain HTTP requests, and
// pier doctor --login with that person signing in.
import { type Ran, runPier } from '../test-helpers.js';
import type { DoctorReport } from './steps.js';

/**
 * `pier doctor <url> --login --json`; when it prints the authorization URL, {@link browse} signs in.
 * Resolves once both are done, with the report.
 */
export async function doctorSignedIn(url: string): Promise<Ran & { report: DoctorReport }> {
  let signedIn: Promise<void> | undefined;
  const ran = await runPier(['doctor', url, '--login', '--json', '--timeout', '30000'], {
    onStderr: (text) => {
      const authorize = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text)?.[1];
      if (authorize !== undefined && signedIn === undefined) signedIn = browse(authorize);
    },
  });
  await signedIn;
  return { ...ran, report: JSON.parse(ran.stdout) as DoctorReport };
}

/** A person in a browser: follows redirects with a cookie jar, signs in, consents, until the loopback redirect. */
export async function browse(start: string): Promise<void> {
  const jar = new Map<string, string>();
  const redirectUri = new URL(start).searchParams.get('redirect_uri') ?? '';
  let next = start;
  let form: string | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(next, {
      method: form === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: {
        ...(cookie !== '' && { cookie }),
        ...(form !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form !== undefined && { body: form }),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    const text = await res.text();
    form = undefined;
    if (res.status >= 300 && res.status < 400) {
      next = new URL(res.headers.get('location') ?? '', next).href;
      if (next.startsWith(redirectUri)) {
        await fetch(next);
        return;
      }
      continue;
    }
    const prompt = /name="prompt" value="(login|consent)"/.exec(text)?.[1];
    if (prompt === undefined)
      throw new Error(`the browser got ${res.status} at ${next}: ${text.slice(0, 200)}`);
    form = new URLSearchParams(
      prompt === 'login' ? { prompt, login: 'alice', password: 'any' } : { prompt },
    ).toString();
  }
  throw new Error('too many redirects');
}
