// pier doctor --login against the example app behind a real authorization server (oidc-provider with its
// development login and consent pages): the doctor registers, prints the authorization URL, a user agent
// (plain HTTP requests, a cookie jar) signs in and consents as a person would in a browser, the doctor
// exchanges the code and lists tools with the token in both eras. A server that accepts a token issued for
// another audience, and its careful twin, are in audience.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AuthServer, freePort, startAuthServer } from '../../../plugin-auth/src/test-as.js';
import { type ExampleApp, runPier, startExampleApp } from '../test-helpers.js';
import type { DoctorReport } from './steps.js';
import { doctorSignedIn } from './test-browser.js';

let as: AuthServer;
let app: ExampleApp;
let url: string;

beforeAll(async () => {
  as = await startAuthServer();
  // The canonical resource URL is configured before the app listens: a port chosen first.
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  app = await startExampleApp({ port, env: { AUTH_ISSUER: as.issuer, AUTH_RESOURCE: url } });
});
afterAll(async () => {
  await app.close();
  await as.close();
});

it('passes the example app with a real authorization server, signing in with --login', async () => {
  const ran = await doctorSignedIn(url);
  const { report } = ran;
  expect(report.steps.filter((s) => s.status === 'fail')).toEqual([]);
  expect(ran.code).toBe(0);
  const status = Object.fromEntries(report.steps.map((s) => [s.id, s.status]));
  expect(status).toMatchObject({
    reach: 'pass',
    challenge: 'pass',
    prm: 'pass',
    'prm-resource': 'pass',
    'as-metadata': 'pass',
    pkce: 'pass',
    registration: 'pass',
    login: 'pass',
    'era-2025': 'pass',
    'era-2026': 'pass',
    authenticated: 'pass',
    audience: 'pass',
  });
  // The authorization server saw the doctor register, authorize and exchange the code.
  expect(as.log).toEqual(expect.arrayContaining(['POST /reg', 'GET /auth', 'POST /token']));
  // A token never reaches the output.
  expect(ran.stdout).not.toMatch(/eyJ[\w-]{20,}\./);
});

it('without --login, the sign-in steps are skipped and say how to run them', async () => {
  const ran = await runPier(['doctor', url, '--json']);
  const report = JSON.parse(ran.stdout) as DoctorReport;
  expect(ran.code).toBe(0);
  expect(report.steps.find((s) => s.id === 'login')?.evidence[0]).toMatch(/--login/);
});
