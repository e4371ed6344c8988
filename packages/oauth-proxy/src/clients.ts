// MCP clients as the proxy knows them: registered on the fly (RFC 7591), or named by the https URL of their
// client ID metadata document (draft-ietf-oauth-client-id-metadata-document), fetched and checked here.
// Both end up as one Client record; the redirect URIs they declare are the only places codes ever go.
import type { Logger } from '@pier/core';
import { randomToken, sameSecret, sha256 } from './crypto.js';
import type { ProxyStore } from './store.js';
import { json, OPEN_CORS, oauthError } from './web.js';

/** An MCP client, as registered or as its metadata document describes it. */
export interface Client {
  readonly client_id: string;
  readonly client_name?: string;
  readonly client_uri?: string;
  readonly redirect_uris: readonly string[];
  readonly grant_types: readonly string[];
  readonly response_types: readonly string[];
  readonly token_endpoint_auth_method: 'none' | 'client_secret_basic' | 'client_secret_post';
  readonly application_type?: string;
  readonly scope?: string;
  /** Seconds since the epoch. */
  readonly client_id_issued_at?: number;
  /** How the proxy knows it. */
  readonly kind: 'registered' | 'document';
  /** SHA-256 of the client secret (confidential registered clients only); the secret itself is never kept. */
  readonly secretHash?: string;
}

/** What the client registry needs from the proxy's settings. */
export interface ClientSettings {
  readonly store: ProxyStore;
  readonly registrationTtlMs: number;
  /** Client ID metadata documents: how they are fetched, or `undefined` when they are off. */
  readonly documents: { readonly fetch: typeof fetch; readonly timeoutMs: number } | undefined;
  readonly logger: () => Logger | undefined;
}

/** Why a client or its metadata was refused: an RFC 7591 / RFC 6749 error code and a fixed description. */
export class ClientProblem {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {}
}

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
const GRANTS = ['authorization_code', 'refresh_token'];
/** Schemes a redirect URI may never use (open redirects and script execution). */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'about:',
  'blob:',
  'filesystem:',
  'ftp:',
  'ws:',
  'wss:',
  'mailto:',
  'tel:',
  'sms:',
]);
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** A CIMD document is small (the draft suggests 5 KB); a bigger one is refused unread. */
const MAX_DOCUMENT_BYTES = 5 * 1024;

export class ClientRegistry {
  readonly #settings: ClientSettings;

  constructor(settings: ClientSettings) {
    this.#settings = settings;
  }

  /** Whether `clientId` is a client ID metadata document URL this proxy would fetch. */
  isDocumentUrl(clientId: string): boolean {
    return this.#settings.documents !== undefined && documentUrlProblem(clientId) === undefined;
  }

  /** The client, or a problem (`invalid_client`) saying why there is none. */
  async find(clientId: string): Promise<Client | ClientProblem> {
    if (clientId.startsWith('https://') && this.#settings.documents !== undefined) {
      return this.#document(clientId);
    }
    if (clientId === '' || clientId.length > 256)
      return new ClientProblem('invalid_client', 'Unknown client');
    const client = await this.#settings.store.read<Client>('client', clientId);
    return (
      client ??
      new ClientProblem(
        'invalid_client',
        'Unknown client: register it first, or use its metadata document URL',
      )
    );
  }

  /** Keeps a registered client alive while it is used (its registration TTL starts again). */
  async touch(client: Client): Promise<void> {
    if (client.kind !== 'registered') return;
    await this.#settings.store.put('client', client.client_id, client, this.#settings.registrationTtlMs);
  }

  /**
   * Authenticates the client at the token and revocation endpoints: `client_secret_basic`,
   * `client_secret_post`, or a public client naming itself (`none`). One method per request (RFC 6749 §2.3).
   */
  async authenticate(request: Request, params: Map<string, string>): Promise<Client | ClientProblem> {
    const basic = basicCredentials(request.headers.get('authorization'));
    if (basic === 'malformed')
      return new ClientProblem('invalid_client', 'The Authorization header is malformed');
    const bodyId = params.get('client_id');
    const bodySecret = params.get('client_secret');
    if (basic !== undefined && (bodySecret !== undefined || (bodyId !== undefined && bodyId !== basic.id))) {
      return new ClientProblem('invalid_request', 'Use one client authentication method');
    }
    const clientId = basic?.id ?? bodyId;
    if (clientId === undefined) return new ClientProblem('invalid_client', 'The client is not identified');
    const found = await this.find(clientId);
    if (found instanceof ClientProblem) return found;
    const secret = basic?.secret ?? bodySecret;
    const method =
      basic !== undefined ? 'client_secret_basic' : bodySecret !== undefined ? 'client_secret_post' : 'none';
    if (found.token_endpoint_auth_method === 'none') {
      return method === 'none' ? found : new ClientProblem('invalid_client', 'This client has no secret');
    }
    if (method === 'none' || secret === undefined || found.secretHash === undefined) {
      return new ClientProblem('invalid_client', 'Client authentication failed');
    }
    // Basic or post, whichever the client registered: both carry the same secret.
    if (!(await sameSecret(await sha256(secret), found.secretHash))) {
      return new ClientProblem('invalid_client', 'Client authentication failed');
    }
    return found;
  }

  /** `POST /oauth/register` (RFC 7591): registers a client from its metadata. */
  async register(request: Request): Promise<Response> {
    const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      return oauthError(400, 'invalid_client_metadata', 'The registration must be a JSON object', OPEN_CORS);
    }
    let body: unknown;
    try {
      body = JSON.parse(await request.text());
    } catch {
      return oauthError(400, 'invalid_client_metadata', 'The registration is not valid JSON', OPEN_CORS);
    }
    const metadata = clientMetadata(body, 'registration');
    if (metadata instanceof ClientProblem)
      return oauthError(400, metadata.error, metadata.description, OPEN_CORS);
    const clientId = randomToken(16);
    const confidential = metadata.token_endpoint_auth_method !== 'none';
    const secret = confidential ? randomToken(32) : undefined;
    const client: Client = {
      ...metadata,
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      kind: 'registered',
      ...(secret !== undefined && { secretHash: await sha256(secret) }),
    };
    await this.#settings.store.put('client', clientId, client, this.#settings.registrationTtlMs);
    this.#settings.logger()?.info('client registered', {
      client: clientId,
      confidential,
      redirectUris: client.redirect_uris.length,
    });
    const { kind: _kind, secretHash: _hash, ...published } = client;
    return json(
      201,
      { ...published, ...(secret !== undefined && { client_secret: secret, client_secret_expires_at: 0 }) },
      OPEN_CORS,
    );
  }

  /** A client named by its metadata document URL: fetched (or from the store's cache) and checked. */
  async #document(url: string): Promise<Client | ClientProblem> {
    const problem = documentUrlProblem(url);
    if (problem !== undefined) return new ClientProblem('invalid_client', problem);
    const cacheId = await sha256(url);
    const cached = await this.#settings.store.read<Client>('cimd', cacheId);
    if (cached !== undefined) return cached;
    const fetched = await fetchDocument(
      url,
      this.#settings.documents as NonNullable<ClientSettings['documents']>,
    );
    if (fetched instanceof ClientProblem) return fetched;
    const metadata = clientMetadata(fetched.body, 'document');
    if (metadata instanceof ClientProblem) return new ClientProblem('invalid_client', metadata.description);
    if ((fetched.body as { client_id?: unknown }).client_id !== url) {
      return new ClientProblem('invalid_client', "The metadata document's client_id is not its own URL");
    }
    if (metadata.token_endpoint_auth_method !== 'none') {
      return new ClientProblem(
        'invalid_client',
        'A metadata document client must be public (token_endpoint_auth_method none)',
      );
    }
    const client: Client = { ...metadata, client_id: url, kind: 'document' };
    if (fetched.maxAgeMs > 0) await this.#settings.store.put('cimd', cacheId, client, fetched.maxAgeMs);
    return client;
  }
}

/** Why `url` cannot name a client ID metadata document, or `undefined` when it can. */
export function documentUrlProblem(url: string): string | undefined {
  if (url.length > 2048 || !URL.canParse(url)) return 'The client_id is not a valid URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') return 'A client ID metadata document URL must use https';
  if (parsed.pathname === '/' || parsed.pathname === '')
    return 'A client ID metadata document URL must have a path';
  if (parsed.hash !== '' || url.includes('#'))
    return 'A client ID metadata document URL must not have a fragment';
  if (parsed.username !== '' || parsed.password !== '')
    return 'A client ID metadata document URL must not carry credentials';
  // The URL as given must be the URL as parsed: no dot segments, no case or escaping games.
  if (parsed.href !== url || /\/\.\.?(\/|$)/.test(url))
    return 'A client ID metadata document URL must be in canonical form';
  if (isPrivateHost(parsed.hostname))
    return 'A client ID metadata document must not be on a private or loopback address';
  return undefined;
}

/**
 * Host names the proxy never fetches from (server-side request forgery): loopback, private, link-local and
 * unique-local addresses written as IP literals, and `localhost`. Names that resolve to such addresses are
 * not caught here (that needs the resolver): restrict egress where that matters (see the README).
 */
function isPrivateHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  if (v4 !== null) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  if (name.startsWith('[')) {
    const v6 = name.slice(1, -1);
    return (
      v6 === '::1' || v6 === '::' || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) || v6.startsWith('::ffff:')
    );
  }
  return false;
}

/** Fetches a metadata document: https only, no redirects, bounded in time and size. */
async function fetchDocument(
  url: string,
  documents: NonNullable<ClientSettings['documents']>,
): Promise<{ readonly body: unknown; readonly maxAgeMs: number } | ClientProblem> {
  let res: Response;
  try {
    res = await documents.fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(documents.timeoutMs),
    });
  } catch {
    return new ClientProblem('invalid_client', 'The client ID metadata document could not be fetched');
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    return new ClientProblem('invalid_client', `The client ID metadata document answered ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_DOCUMENT_BYTES) {
    await res.body?.cancel();
    return new ClientProblem('invalid_client', 'The client ID metadata document is too large');
  }
  const text = await boundedText(res);
  if (text === undefined)
    return new ClientProblem('invalid_client', 'The client ID metadata document is too large');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new ClientProblem('invalid_client', 'The client ID metadata document is not JSON');
  }
  return { body, maxAgeMs: maxAgeOf(res.headers.get('cache-control')) };
}

/** The body as text, or `undefined` past {@link MAX_DOCUMENT_BYTES}. */
async function boundedText(res: Response): Promise<string | undefined> {
  const reader = res.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** How long a document may be reused: its `max-age`, kept within 1 minute and 1 day; 5 minutes when unsaid. */
function maxAgeOf(cacheControl: string | null): number {
  if (cacheControl === null) return 5 * 60_000;
  if (/\bno-store\b/i.test(cacheControl)) return 0;
  const maxAge = /\bmax-age=(\d+)/i.exec(cacheControl)?.[1];
  if (maxAge === undefined) return 5 * 60_000;
  return Math.min(Math.max(Number(maxAge), 60), 86_400) * 1000;
}

/** Checks client metadata (a registration or a document) and gives it its defaults (RFC 7591 §2). */
function clientMetadata(
  body: unknown,
  source: 'registration' | 'document',
): Omit<Client, 'client_id' | 'kind'> | ClientProblem {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return new ClientProblem('invalid_client_metadata', `The ${source} must be a JSON object`);
  }
  const meta = body as Record<string, unknown>;
  const uris = meta.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10) {
    return new ClientProblem('invalid_redirect_uri', 'redirect_uris must list 1 to 10 redirect URIs');
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) return new ClientProblem('invalid_redirect_uri', problem);
  }
  const method = meta.token_endpoint_auth_method ?? (source === 'document' ? 'none' : 'client_secret_basic');
  if (!AUTH_METHODS.includes(method as never)) {
    return new ClientProblem(
      'invalid_client_metadata',
      'token_endpoint_auth_method must be none, client_secret_basic or client_secret_post',
    );
  }
  if (source === 'document' && ('client_secret' in meta || 'client_secret_expires_at' in meta)) {
    return new ClientProblem('invalid_client_metadata', 'A metadata document must not hold a client secret');
  }
  const grants = meta.grant_types ?? ['authorization_code'];
  if (
    !Array.isArray(grants) ||
    !grants.every((grant) => GRANTS.includes(grant as string)) ||
    !grants.includes('authorization_code')
  ) {
    return new ClientProblem(
      'invalid_client_metadata',
      'grant_types must include authorization_code, and may add refresh_token only',
    );
  }
  const responses = meta.response_types ?? ['code'];
  if (!Array.isArray(responses) || responses.length !== 1 || responses[0] !== 'code') {
    return new ClientProblem('invalid_client_metadata', 'response_types must be ["code"]');
  }
  const name = meta.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.length > 200)) {
    return new ClientProblem(
      'invalid_client_metadata',
      'client_name must be a string of at most 200 characters',
    );
  }
  if (source === 'document' && (typeof name !== 'string' || name.trim() === '')) {
    return new ClientProblem('invalid_client_metadata', 'A metadata document must have a client_name');
  }
  const clientUri = meta.client_uri;
  if (
    clientUri !== undefined &&
    (typeof clientUri !== 'string' || !URL.canParse(clientUri) || !clientUri.startsWith('https://'))
  ) {
    return new ClientProblem('invalid_client_metadata', 'client_uri must be an https URL');
  }
  const scope = meta.scope;
  if (scope !== undefined && (typeof scope !== 'string' || scope.length > 1000)) {
    return new ClientProblem('invalid_client_metadata', 'scope must be a string');
  }
  const application = meta.application_type;
  if (application !== undefined && application !== 'native' && application !== 'web') {
    return new ClientProblem('invalid_client_metadata', 'application_type must be native or web');
  }
  return {
    redirect_uris: [...(uris as string[])],
    grant_types: [...new Set(grants as string[])],
    response_types: ['code'],
    token_endpoint_auth_method: method as Client['token_endpoint_auth_method'],
    // Control characters could forge lines on the consent page; they are dropped.
    ...(typeof name === 'string' && { client_name: name.replace(/[\p{Cc}\p{Cf}]/gu, '').trim() }),
    ...(typeof clientUri === 'string' && { client_uri: clientUri }),
    ...(typeof scope === 'string' && { scope }),
    ...(typeof application === 'string' && { application_type: application }),
  };
}

/**
 * Why `uri` cannot be a redirect URI, or `undefined`. Allowed: https; http on a loopback address (RFC 8252
 * §7.3); a private-use scheme of a native app (`cursor://…`, RFC 8252 §7.1). Never a fragment, never
 * credentials, never a scheme that runs script or opens local content.
 */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri.length > 2048 || !URL.canParse(uri))
    return 'Each redirect URI must be an absolute URI';
  const url = new URL(uri);
  if (url.hash !== '' || uri.includes('#')) return 'A redirect URI must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'A redirect URI must not carry credentials';
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `A redirect URI must not use the ${url.protocol} scheme`;
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) {
    return 'A redirect URI must use https (http is accepted for loopback addresses only)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:' && !/^[a-z][a-z0-9+.-]*:$/.test(url.protocol)) {
    return 'A redirect URI has an invalid scheme';
  }
  return undefined;
}

/** Credentials of an `Authorization: Basic` header (RFC 6749 §2.3.1: form-urlencoded id and secret). */
function basicCredentials(header: string | null): { id: string; secret: string } | undefined | 'malformed' {
  if (header === null) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (match === null) return /^Basic\b/i.test(header) ? 'malformed' : undefined;
  let decoded: string;
  try {
    decoded = atob(match[1] as string);
  } catch {
    return 'malformed';
  }
  const at = decoded.indexOf(':');
  if (at === -1) return 'malformed';
  try {
    const decode = (value: string) => decodeURIComponent(value.replace(/\+/g, '%20'));
    return { id: decode(decoded.slice(0, at)), secret: decode(decoded.slice(at + 1)) };
  } catch {
    return 'malformed';
  }
}
