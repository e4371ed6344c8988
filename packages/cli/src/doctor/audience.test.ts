// The audience step of pier doctor --login. A real authorization server (oidc-provider) that ignores the
// resource a client asks for — every token's aud is another API, as an AS with a fixed default audience
// does — and two Pier servers behind it:
// - a careless one, whose verifier checks the signature and the issuer but not the audience: it lets the
//   doctor list tools with that token, and the doctor names it (the audience step fails, saying the server
//   accepted a token for another audience);
// - a careful one (plugin-auth's jwt(), which checks aud): it refuses the token, and the doctor does not
//   call it careless — the audience step names the authorization server instead.
// With an authorization server that honours the resource, the careful setup passes every step
// (login.test.ts, the example app).
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { custom } from '@pier/plugin-auth';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Rig, SCOPES, startPier } from '../../../plugin-auth/src/test-as.js';
import type { DoctorReport } from './steps.js';
import { doctorSignedIn } from './test-browser.js';

const OTHER_API = 'https://api.other.example/';
let issuer: string;
let closeAs: () => Promise<void>;
let careless: Rig;
let careful: Rig;

beforeAll(async () => {
  const http = createHttpServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'es-1', alg: 'ES256', use: 'sig' }] },
    scopes: SCOPES.split(' '),
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        // The flaw: whatever resource the client asked for, the token is for another API.
        getResourceServerInfo: () => ({
          scope: SCOPES,
          audience: OTHER_API,
          accessTokenFormat: 'jwt' as const,
          jwt: { sign: { alg: 'ES256' as const } },
        }),
      },
    },
    // The only signing key is ES256 (oidc-provider's defaults would want an RS256 one for ID tokens).
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    cookies: { keys: ['audience-test-cookie-key'] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  });
  http.on('request', provider.callback());
  closeAs = () =>
    new Promise((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  const keys = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  // Both ask for the notes scopes (their metadata lists them, so a client requests them).
  const scopesSupported = ['notes:read', 'notes:write'];
  [careless, careful] = await Promise.all([
    startPier(() => ({
      authorizationServers: [issuer],
      scopesSupported,
      // Signature and issuer checked, the audience forgotten: the flaw the doctor must name.
      verifier: custom(async (token) => {
        const { payload } = await jwtVerify(token, keys, { issuer }).catch(() => ({ payload: undefined }));
        if (payload === undefined) return undefined;
        return {
          clientId: String(payload.client_id ?? ''),
          scopes: String(payload.scope ?? '').split(' '),
          claims: payload,
          ...(payload.exp !== undefined && { expiresAt: payload.exp }),
        };
      }),
    })),
    startPier(() => ({ authorizationServers: [issuer], scopesSupported })),
  ]);
});
afterAll(async () => {
  await Promise.all([careless.server.close(), careful.server.close()]);
  await closeAs();
});

const statusOf = (report: DoctorReport) => Object.fromEntries(report.steps.map((s) => [s.id, s.status]));

it.concurrent('names the careless server that accepted a token issued for another audience', async () => {
  const { code, report, stdout, stderr } = await doctorSignedIn(careless.url);
  expect(code).toBe(1);
  expect(report.steps.filter((s) => s.status === 'fail').map((s) => s.id)).toEqual(['audience']);
  // It signed in and the server let it list tools with that token, in both eras.
  expect(statusOf(report)).toMatchObject({
    login: 'pass',
    'era-2025': 'pass',
    'era-2026': 'pass',
    authenticated: 'pass',
  });
  const audience = report.steps.find((s) => s.id === 'audience');
  expect(audience?.evidence).toEqual([
    `aud: ${OTHER_API}`,
    `the server accepted a token issued for another audience than ${careless.resource}`,
  ]);
  expect(audience?.fix).toMatch(/^The server MUST reject tokens whose audience is not its resource/);
  expect(stdout + stderr).not.toMatch(/eyJ[\w-]{20,}\./);
});

it.concurrent('the negative control: a careful server refuses that token and is not called careless', async () => {
  const { code, report } = await doctorSignedIn(careful.url);
  expect(code).toBe(1);
  expect(statusOf(report)).toMatchObject({ login: 'pass', authenticated: 'fail', audience: 'fail' });
  const audience = report.steps.find((s) => s.id === 'audience');
  expect(audience?.evidence).toEqual([
    `aud: ${OTHER_API}`,
    `the authorization server issued a token for another audience than ${careful.resource} (the server rightly refused it)`,
  ]);
  expect(audience?.evidence.join('\n')).not.toMatch(/server accepted/);
  expect(audience?.fix).toMatch(/^Make the authorization server honour the resource parameter/);
});
