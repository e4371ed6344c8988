// Test helper (excluded from the build): what a person and their browser do in an authorization code flow,
// done over real HTTP. A loopback redirect URI served by a real server, a user agent that follows the
// authorization server's redirects with a cookie jar and submits oidc-provider's own login and consent
// pages, and an OAuthClientProvider keeping everything in memory (the SDK's own machinery does the rest:
// discovery, registration or CIMD, PKCE, the token exchange, refresh).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback redirect URI (RFC 8252 §7.3) with a real server behind it; records what reached it. */
export interface Callback {
  readonly redirectUrl: string;
  /** The query strings the callback received, in order. */
  readonly received: URLSearchParams[];
  close(): Promise<void>;
}

export async function startCallback(): Promise<Callback> {
  const received: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('You can close this window.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Opens `authorizationUrl` as a browser would: follows redirects (at most `maxHops`), keeps cookies, signs
 * in as `login` and consents on oidc-provider's pages, until the redirect reaches `callback`. Returns the
 * query the callback received (`code`, `state`, `iss`).
 */
export async function userAgent(
  authorizationUrl: URL,
  callback: Callback,
  { login = 'alice', maxHops = 20 }: { login?: string; maxHops?: number } = {},
): Promise<URLSearchParams> {
  const jar = new Map<string, string>();
  let url = authorizationUrl.href;
  let form: string | undefined;
  for (let hop = 0; hop < maxHops; hop++) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(url, {
      method: form === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: {
        ...(cookie !== '' && { cookie }),
        ...(form !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form !== undefined && { body: form }),
      signal: AbortSignal.timeout(10_000),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const gone = attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (gone) jar.delete(name);
      else jar.set(name, pair.slice(at + 1).trim());
    }
    const text = await res.text();
    form = undefined;
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location') ?? '', url).href;
      continue;
    }
    if (res.status === 200 && url.startsWith(`${callback.redirectUrl}?`)) {
      // Several flows may share the callback: take what it received for this very redirect.
      const sent = new URL(url).searchParams.toString();
      const got = callback.received.find((params) => params.toString() === sent);
      if (got === undefined) throw new Error('the callback server did not receive the redirect');
      return got;
    }
    const prompt = /name="prompt" value="(login|consent)"/.exec(text)?.[1];
    if (res.status === 200 && prompt !== undefined) {
      form = new URLSearchParams(
        prompt === 'login' ? { prompt, login, password: 'any' } : { prompt },
      ).toString();
      continue;
    }
    throw new Error(`the user agent got ${res.status} at ${url}: ${text.slice(0, 300)}`);
  }
  throw new Error(`the user agent gave up after ${maxHops} redirects`);
}

interface Tokens {
  readonly access_token: string;
  readonly token_type: string;
  readonly refresh_token?: string;
  readonly id_token?: string;
  readonly scope?: string;
  readonly expires_in?: number;
}

/**
 * An OAuthClientProvider (the shape of SDK v2 and v1 alike) for a public client with a loopback redirect:
 * registered on the fly (DCR) or, with `clientMetadataUrl`, named by its metadata document (CIMD).
 */
export class MemoryOAuthProvider {
  readonly redirectUrl: string;
  readonly clientMetadataUrl: string | undefined;
  /** Every authorization URL the SDK asked the user agent to open. */
  readonly authorizations: URL[] = [];
  /** Every token set the SDK saved (the first from the code exchange, then one per refresh). */
  readonly saved: Tokens[] = [];
  #client: Record<string, unknown> | undefined;
  #tokens: Tokens | undefined;
  #verifier = '';
  #discovery: unknown;

  readonly #keepRefreshToken: boolean;

  /** `keepRefreshToken: false` forgets refresh tokens (the negative control of refresh). */
  constructor(callback: Callback, options: { clientMetadataUrl?: string; keepRefreshToken?: boolean } = {}) {
    this.redirectUrl = callback.redirectUrl;
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.#keepRefreshToken = options.keepRefreshToken ?? true;
  }

  get clientMetadata() {
    return {
      client_name: 'Pier test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.#client as never;
  }
  saveClientInformation(information: Record<string, unknown>) {
    this.#client = information;
  }
  /** The client id the AS knows this client by (registered, or the metadata document URL). */
  get clientId(): string | undefined {
    return this.#client?.client_id as string | undefined;
  }
  tokens() {
    return this.#tokens as never;
  }
  saveTokens(received: Tokens) {
    const { refresh_token: _dropped, ...rest } = received;
    const tokens = this.#keepRefreshToken ? received : rest;
    this.#tokens = tokens;
    this.saved.push(tokens);
  }
  redirectToAuthorization(authorizationUrl: URL) {
    this.authorizations.push(authorizationUrl);
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
  // SEP-2352: the SDK v2 binds the callback leg to the authorization server it discovered.
  saveDiscoveryState(state: unknown) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery as never;
  }
  /** The last authorization URL, which the user agent opens next. */
  get pending(): URL {
    const url = this.authorizations[this.authorizations.length - 1];
    if (url === undefined) throw new Error('the SDK never asked to open an authorization URL');
    return url;
  }
}
