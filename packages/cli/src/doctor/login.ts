// `pier doctor --login`: what a client does to sign a person in — register (RFC 7591), send the person
// to the authorization endpoint with PKCE S256 and the resource (RFC 8707), receive the code on a
// loopback redirect (RFC 8252 §7.3), and exchange it for a token.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { record, request, short } from './http.js';

export interface LoginOptions {
  /** Shown the authorization URL (the person opens it). */
  readonly onUrl: (url: string) => void;
  /** Open the URL in the browser too. */
  readonly open?: boolean;
  /** A client registered by hand, instead of dynamic registration. */
  readonly clientId?: string;
  /** How long to wait for the person to finish. Default 300 000 ms. */
  readonly timeoutMs?: number;
}

export interface LoginResult {
  readonly accessToken: string;
  readonly evidence: string[];
}

interface Discovery {
  readonly resource: string;
  readonly issuer: string;
  readonly metadata: Record<string, unknown>;
  readonly scope: string | undefined;
}

export async function login(found: Discovery, options: LoginOptions): Promise<LoginResult> {
  const { metadata } = found;
  const evidence: string[] = [];
  const callback = await loopback();
  try {
    let clientId = options.clientId;
    if (clientId === undefined) {
      if (typeof metadata.registration_endpoint !== 'string') {
        throw new Error(
          'no registration endpoint to register the doctor with (client ID metadata documents need a public https URL the doctor cannot serve): pass --client-id of a client registered by hand, with redirect URI http://127.0.0.1/callback',
        );
      }
      const registered = await request(metadata.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'pier doctor',
          redirect_uris: [callback.redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          application_type: 'native',
        }),
      });
      const id = record(registered.json)?.client_id;
      if (registered.status >= 300 || typeof id !== 'string') {
        throw new Error(
          `dynamic client registration at ${metadata.registration_endpoint} → ${registered.status}: ${short(registered.text)}`,
        );
      }
      clientId = id;
      evidence.push(`registered client ${id} at ${metadata.registration_endpoint}`);
    }
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const state = randomBytes(16).toString('base64url');
    const authorize = new URL(String(metadata.authorization_endpoint));
    authorize.searchParams.set('response_type', 'code');
    authorize.searchParams.set('client_id', clientId);
    authorize.searchParams.set('redirect_uri', callback.redirectUri);
    authorize.searchParams.set('code_challenge', challenge);
    authorize.searchParams.set('code_challenge_method', 'S256');
    authorize.searchParams.set('state', state);
    authorize.searchParams.set('resource', found.resource);
    if (found.scope !== undefined) authorize.searchParams.set('scope', found.scope);
    options.onUrl(authorize.href);
    if (options.open === true) openBrowser(authorize.href);
    const params = await callback.next(options.timeoutMs ?? 300_000);
    if (params.get('error') !== null) {
      throw new Error(
        `the authorization server answered ${params.get('error')}: ${params.get('error_description') ?? ''}`,
      );
    }
    if (params.get('state') !== state)
      throw new Error('the redirect carried another state: refused (CSRF protection)');
    const iss = params.get('iss');
    if (metadata.authorization_response_iss_parameter_supported === true && iss !== found.issuer) {
      throw new Error(`the redirect's iss is ${iss ?? '(absent)'}, not ${found.issuer} (RFC 9207): refused`);
    }
    const code = params.get('code');
    if (code === null) throw new Error('the redirect carried no code');
    evidence.push(
      `authorization code received on ${callback.redirectUri}${iss === null ? '' : ` (iss ${iss})`}`,
    );
    const token = await request(String(metadata.token_endpoint), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: callback.redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource: found.resource,
      }).toString(),
    });
    const body = record(token.json);
    const accessToken = body?.access_token;
    if (token.status !== 200 || typeof accessToken !== 'string') {
      throw new Error(
        `the token endpoint answered ${token.status}: ${short(String(body?.error ?? token.text))} ${short(String(body?.error_description ?? ''))}`,
      );
    }
    evidence.push(
      `token endpoint → 200: ${String(body?.token_type ?? 'token')}, expires in ${String(body?.expires_in ?? '?')} s, scope ${String(body?.scope ?? '(none)')}`,
    );
    return { accessToken, evidence };
  } finally {
    await callback.close();
  }
}

async function loopback(): Promise<{
  redirectUri: string;
  next(timeoutMs: number): Promise<URLSearchParams>;
  close(): Promise<void>;
}> {
  let deliver: (params: URLSearchParams) => void = () => undefined;
  const received = new Promise<URLSearchParams>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('pier doctor received the sign-in. You can close this window.');
    deliver(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    next: (timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`nobody finished signing in within ${Math.round(timeoutMs / 1000)} s`)),
          timeoutMs,
        );
        void received.then((params) => {
          clearTimeout(timer);
          resolve(params);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(command as string, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}
