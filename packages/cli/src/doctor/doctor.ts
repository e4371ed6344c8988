// `pier doctor <url>`: the checks, in the order a hosted client meets them.
import { messageOf } from '../errors.js';
import { connectTarget, LEGACY_VERSIONS, MODERN } from '../target.js';
import { canonical, record, request, type Seen, short, wwwAuthenticateParams } from './http.js';
import { type LoginOptions, login } from './login.js';
import { type DoctorReport, Steps } from './steps.js';

export interface DoctorOptions {
  /** The browser origin the CORS step asks for. Default `https://claude.ai`, a warning only when no CORS at all. */
  readonly origin?: string;
  /** Run the sign-in (authorization code + PKCE) and the authenticated checks. */
  readonly login?: LoginOptions;
  readonly onProgress?: (label: string) => void;
}

const AUTH_STEPS = ['prm', 'prm-resource', 'as-metadata', 'pkce', 'registration', 'scopes'];
const LOGIN_STEPS = ['login', 'authenticated', 'audience'];

export async function doctor(url: URL, options: DoctorOptions = {}): Promise<DoctorReport> {
  const steps = new Steps();
  const progress = options.onProgress ?? (() => undefined);
  const target = url.href;
  progress('reaching the server');
  let first: Seen;
  try {
    first = await request(target, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify(initialize(LEGACY_VERSIONS[0] ?? '2025-11-25')),
    });
  } catch (error) {
    steps.add(
      'reach',
      'fail',
      [`POST ${target}: ${messageOf(error)}`],
      'Is the server running, and at this URL? Hosted clients need a public https URL; a tunnel (cloudflared, ngrok) works for testing.',
    );
    steps.skip(
      ['era-2025', 'era-2026', 'content-type', 'cors', 'challenge', ...AUTH_STEPS, ...LOGIN_STEPS],
      'the server could not be reached',
    );
    return finish(target, steps);
  }
  steps.add('reach', 'pass', [`POST ${target} → ${first.status}`]);
  const needsAuth = first.status === 401;

  // Content types: a 2xx MCP answer is JSON or SSE; a 4xx should be JSON too (clients show it).
  const type = first.headers.get('content-type') ?? '(none)';
  if (first.status < 300 && !/application\/json|text\/event-stream/.test(type)) {
    steps.add(
      'content-type',
      'fail',
      [`POST → ${first.status}, Content-Type: ${type}`],
      'Answer MCP POSTs with application/json or text/event-stream (streamable HTTP).',
    );
  } else if (first.status >= 400 && first.status !== 401 && first.status !== 403) {
    steps.add(
      'content-type',
      'fail',
      [`POST initialize → ${first.status} ${type}: ${short(first.text)}`],
      'The MCP endpoint should accept a POST with Accept: application/json, text/event-stream; check the path (usually /mcp).',
    );
  } else {
    steps.add('content-type', 'pass', [`POST → ${first.status}, Content-Type: ${type}`]);
  }

  await checkCors(steps, target, options.origin, needsAuth);

  let token: string | undefined;
  if (!needsAuth) {
    steps.skip(
      ['challenge', ...AUTH_STEPS, ...LOGIN_STEPS],
      'the server asks for no token: clients connect without signing in',
    );
  } else {
    progress('reading the authorization metadata');
    const discovered = await checkDiscovery(steps, url, first);
    if (options.login === undefined) {
      steps.skip(LOGIN_STEPS, 'sign-in not tried: run pier doctor --login');
    } else if (discovered === undefined || steps.failed) {
      steps.skip(LOGIN_STEPS, 'sign-in not tried: an earlier step failed');
    } else {
      progress('signing in');
      try {
        const result = await login(discovered, options.login);
        token = result.accessToken;
        steps.add('login', 'pass', result.evidence);
      } catch (error) {
        steps.add(
          'login',
          'fail',
          [messageOf(error)],
          'See the authorization server log for the refused request; the evidence names the endpoint that answered.',
        );
        steps.skip(['authenticated', 'audience'], 'no token');
      }
    }
  }

  progress('connecting in both eras');
  const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const canConnect = !needsAuth || token !== undefined;
  const eraResults: Record<string, string | undefined> = {};
  for (const era of ['2025', '2026'] as const) {
    const id = era === '2025' ? 'era-2025' : 'era-2026';
    if (!canConnect) {
      steps.add(id, 'skip', ['needs a token: run pier doctor --login']);
      continue;
    }
    try {
      const connection = await connectTarget({ kind: 'url', url }, { era, headers, timeoutMs: 10_000 });
      let tools = 0;
      try {
        tools = (await connection.client.listTools()).tools.length;
      } finally {
        await connection.close();
      }
      eraResults[era] = `${connection.protocolVersion}: ${tools} tool${tools === 1 ? '' : 's'}`;
      steps.add(id, 'pass', [`negotiated ${connection.protocolVersion}; tools/list → ${tools} tools`]);
    } catch (error) {
      steps.add(
        id,
        'fail',
        [short(messageOf(error), 300)],
        era === '2025'
          ? 'Serve the 2025 initialize handshake too: most deployed clients (claude.ai, Claude Desktop, Cursor, VS Code) still open with initialize.'
          : `Answer server/discover and requests carrying MCP-Protocol-Version: ${MODERN} (an SDK v2 server or Pier does).`,
      );
    }
  }
  if (token !== undefined) {
    const both = eraResults['2025'] !== undefined && eraResults['2026'] !== undefined;
    steps.add(
      'authenticated',
      both ? 'pass' : 'fail',
      Object.entries(eraResults).map(([era, text]) => `${era}: ${text ?? 'failed'}`),
      both
        ? undefined
        : 'The server refused the token it asked for: see the era steps for its answer, and the server log for why.',
    );
    checkAudience(steps, token, discovered(steps), both);
  }
  return finish(target, steps);
}

function discovered(steps: Steps): string {
  return (
    steps.list
      .find((s) => s.id === 'prm-resource')
      ?.evidence.find((e) => e.startsWith('resource: '))
      ?.slice(10) ?? ''
  );
}

function finish(url: string, steps: Steps): DoctorReport {
  const order = [
    'reach',
    'era-2025',
    'era-2026',
    'content-type',
    'cors',
    'challenge',
    ...AUTH_STEPS,
    ...LOGIN_STEPS,
  ];
  const sorted = [...steps.list].sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  return { url, ok: !steps.failed, steps: sorted };
}

function initialize(protocolVersion: string) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'pier-doctor', version: '0.1.0' } },
  };
}

async function checkCors(
  steps: Steps,
  url: string,
  origin: string | undefined,
  needsAuth: boolean,
): Promise<void> {
  const asked = origin ?? 'https://claude.ai';
  const wanted = ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id'];
  let preflight: Seen;
  try {
    preflight = await request(url, {
      method: 'OPTIONS',
      headers: {
        origin: asked,
        'access-control-request-method': 'POST',
        'access-control-request-headers': wanted.join(','),
      },
    });
  } catch (error) {
    steps.add('cors', 'fail', [`OPTIONS ${url}: ${messageOf(error)}`]);
    return;
  }
  const allowOrigin = preflight.headers.get('access-control-allow-origin');
  const evidence = [
    `OPTIONS with Origin: ${asked} → ${preflight.status}, Access-Control-Allow-Origin: ${allowOrigin ?? '(none)'}`,
  ];
  if (allowOrigin === null) {
    const fix = `Enable CORS for ${asked} on the MCP endpoint (Pier: httpTransport({ cors: { origins: ['${asked}'] } })).`;
    // No CORS at all only matters to clients that run in a browser; hosted clients call from their servers.
    if (origin === undefined) {
      evidence.push(
        'no CORS: browser-based clients (web inspectors, in-page agents) cannot connect; clients that connect from their servers, like claude.ai, are not affected',
      );
      steps.add('cors', 'warn', evidence, fix);
    } else steps.add('cors', 'fail', evidence, fix);
    return;
  }
  const problems: string[] = [];
  if (allowOrigin !== '*' && allowOrigin !== asked)
    problems.push(`the origin allowed is ${allowOrigin}, not ${asked}`);
  const allowHeaders = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
  const missing = wanted.filter((h) => allowHeaders !== '*' && !allowHeaders.split(/\s*,\s*/).includes(h));
  if (missing.length > 0) problems.push(`Access-Control-Allow-Headers lacks ${missing.join(', ')}`);
  const allowMethods = (preflight.headers.get('access-control-allow-methods') ?? '').toUpperCase();
  if (allowMethods !== '' && allowMethods !== '*' && !allowMethods.includes('POST'))
    problems.push('Access-Control-Allow-Methods lacks POST');
  if (problems.length === 0) {
    try {
      const post = await request(url, {
        method: 'POST',
        headers: {
          origin: asked,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
        body: JSON.stringify(initialize(LEGACY_VERSIONS[0] ?? '2025-11-25')),
      });
      const expose = (post.headers.get('access-control-expose-headers') ?? '').toLowerCase();
      evidence.push(
        `POST with Origin → ${post.status}, Access-Control-Expose-Headers: ${expose || '(none)'}`,
      );
      if (post.headers.get('access-control-allow-origin') === null)
        problems.push('the POST itself carries no Access-Control-Allow-Origin');
      for (const header of ['mcp-session-id', ...(needsAuth ? ['www-authenticate'] : [])]) {
        if (expose !== '*' && !expose.includes(header))
          problems.push(`Access-Control-Expose-Headers lacks ${header}`);
      }
    } catch (error) {
      problems.push(`POST with Origin failed: ${messageOf(error)}`);
    }
  }
  if (problems.length === 0) steps.add('cors', 'pass', evidence);
  else
    steps.add(
      'cors',
      'fail',
      [...evidence, ...problems],
      `Allow ${asked}, the headers ${wanted.join(', ')}, and expose Mcp-Session-Id${needsAuth ? ' and WWW-Authenticate' : ''}.`,
    );
}

/** What discovery found, for the sign-in. */
export interface Discovered {
  readonly resource: string;
  readonly issuer: string;
  readonly metadata: Record<string, unknown>;
  readonly scope: string | undefined;
}

async function checkDiscovery(steps: Steps, url: URL, first: Seen): Promise<Discovered | undefined> {
  const header = first.headers.get('www-authenticate') ?? '';
  const params = wwwAuthenticateParams(header);
  if (!/^bearer\b/i.test(header.trim())) {
    steps.add(
      'challenge',
      'fail',
      [`401 with WWW-Authenticate: ${header || '(none)'}`],
      'Answer an unauthenticated request with 401 and WWW-Authenticate: Bearer resource_metadata="<URL of your protected resource metadata>" (RFC 9728 §5.1).',
    );
  } else if (params.resource_metadata === undefined) {
    steps.add(
      'challenge',
      'fail',
      [`WWW-Authenticate: ${short(header, 200)}`, 'no resource_metadata parameter'],
      'Add resource_metadata="<URL of your protected resource metadata>" to the challenge: 2025-06-18 clients find the metadata only through it (RFC 9728 §5.1).',
    );
  } else {
    steps.add('challenge', 'pass', [`WWW-Authenticate: ${short(header, 200)}`]);
  }

  // Protected resource metadata: the challenge's URL, then the path-aware and the root well-known URLs.
  const pathAware = new URL(`/.well-known/oauth-protected-resource${url.pathname.replace(/\/$/, '')}`, url)
    .href;
  const root = new URL('/.well-known/oauth-protected-resource', url).href;
  const candidates = [
    ...new Set(
      [params.resource_metadata, pathAware, root].filter(
        (u): u is string => u !== undefined && URL.canParse(u),
      ),
    ),
  ];
  const evidence: string[] = [];
  let prm: Record<string, unknown> | undefined;
  let headerFailed = false;
  for (const candidate of candidates) {
    try {
      const seen = await request(candidate);
      const doc = record(seen.json);
      const valid =
        seen.status === 200 &&
        doc !== undefined &&
        typeof doc.resource === 'string' &&
        Array.isArray(doc.authorization_servers) &&
        doc.authorization_servers.length > 0;
      evidence.push(
        `GET ${candidate} → ${seen.status}${valid ? '' : seen.status === 200 ? ' (no resource or authorization_servers)' : ''}`,
      );
      if (valid && prm === undefined) prm = doc;
      if (!valid && candidate === params.resource_metadata) headerFailed = true;
    } catch (error) {
      evidence.push(`GET ${candidate}: ${messageOf(error)}`);
      if (candidate === params.resource_metadata) headerFailed = true;
    }
  }
  if (prm === undefined) {
    steps.add(
      'prm',
      'fail',
      evidence,
      `Serve protected resource metadata (RFC 9728) at ${pathAware}: { "resource": "${canonical(url.href)}", "authorization_servers": ["https://your-as.example"] }.`,
    );
    steps.skip(
      ['prm-resource', 'as-metadata', 'pkce', 'registration', 'scopes'],
      'no protected resource metadata',
    );
    return undefined;
  }
  if (headerFailed)
    steps.add(
      'prm',
      'fail',
      evidence,
      'The challenge names a metadata URL that does not serve the document: make resource_metadata point where it is served.',
    );
  else steps.add('prm', 'pass', evidence);

  const resource = String(prm.resource);
  const authorizationServers = (prm.authorization_servers as unknown[]).map(String);
  const same = canonical(resource).toLowerCase() === canonical(url.href).toLowerCase();
  if (same) steps.add('prm-resource', 'pass', [`resource: ${resource}`]);
  else {
    steps.add(
      'prm-resource',
      'fail',
      [`resource: ${resource}`, `the client connects to ${url.href}`],
      `Set the metadata's resource to ${canonical(url.href)}: clients refuse metadata for another resource, and tokens are issued for the resource it names (RFC 9728 §3.3, RFC 8707).`,
    );
  }

  // Authorization server metadata: RFC 8414 first, then OpenID discovery (path-inserted, then appended).
  const issuer = authorizationServers[0] ?? '';
  const asUrl = new URL(issuer);
  const path = asUrl.pathname.replace(/\/$/, '');
  const asCandidates = [
    new URL(`/.well-known/oauth-authorization-server${path}`, asUrl).href,
    new URL(`/.well-known/openid-configuration${path}`, asUrl).href,
    ...(path === '' ? [] : [`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`]),
  ];
  const asEvidence: string[] = [`authorization server: ${issuer}`];
  let metadata: Record<string, unknown> | undefined;
  for (const candidate of asCandidates) {
    try {
      const seen = await request(candidate);
      asEvidence.push(`GET ${candidate} → ${seen.status}`);
      const doc = record(seen.json);
      if (seen.status === 200 && doc !== undefined) {
        metadata = doc;
        break;
      }
    } catch (error) {
      asEvidence.push(`GET ${candidate}: ${messageOf(error)}`);
    }
  }
  if (metadata === undefined) {
    steps.add(
      'as-metadata',
      'fail',
      asEvidence,
      `Serve RFC 8414 metadata at ${asCandidates[0]} (or OpenID discovery), or fix authorization_servers in the resource metadata.`,
    );
    steps.skip(['pkce', 'registration', 'scopes'], 'no authorization server metadata');
    return undefined;
  }
  const problems: string[] = [];
  if (metadata.issuer !== issuer && canonical(String(metadata.issuer)) !== canonical(issuer))
    problems.push(
      `its issuer is ${String(metadata.issuer)}, not ${issuer} (RFC 8414 §3.3: clients refuse it)`,
    );
  for (const field of ['authorization_endpoint', 'token_endpoint'])
    if (typeof metadata[field] !== 'string') problems.push(`no ${field}`);
  if (problems.length > 0)
    steps.add(
      'as-metadata',
      'fail',
      [...asEvidence, ...problems],
      'Fix the authorization server metadata: the issuer must equal the URL in authorization_servers, with both endpoints.',
    );
  else steps.add('as-metadata', 'pass', asEvidence);

  const methods = metadata.code_challenge_methods_supported;
  if (Array.isArray(methods) && methods.includes('S256'))
    steps.add('pkce', 'pass', [`code_challenge_methods_supported: ${JSON.stringify(methods)}`]);
  else {
    steps.add(
      'pkce',
      'fail',
      [`code_challenge_methods_supported: ${methods === undefined ? '(absent)' : JSON.stringify(methods)}`],
      'Turn on PKCE with S256 at the authorization server and list it in code_challenge_methods_supported: MCP clients refuse an authorization server that does not advertise S256.',
    );
  }

  const dcr = typeof metadata.registration_endpoint === 'string';
  const cimd = metadata.client_id_metadata_document_supported === true;
  if (dcr || cimd) {
    steps.add('registration', 'pass', [
      ...(dcr ? [`dynamic client registration: ${String(metadata.registration_endpoint)}`] : []),
      ...(cimd ? ['client ID metadata documents: supported'] : []),
    ]);
  } else {
    steps.add(
      'registration',
      'fail',
      ['no registration_endpoint, and client_id_metadata_document_supported is not true'],
      'Enable client ID metadata documents (what 2026-07-28 clients prefer) or dynamic client registration (RFC 7591) at the authorization server; otherwise each hosted client needs a client registered by hand.',
    );
  }

  const prmScopes = Array.isArray(prm.scopes_supported) ? prm.scopes_supported.map(String) : [];
  const asked = params.scope?.split(' ').filter(Boolean) ?? prmScopes;
  const asScopes = Array.isArray(metadata.scopes_supported)
    ? metadata.scopes_supported.map(String)
    : undefined;
  const scopeEvidence = [
    `asked for: ${asked.join(' ') || '(none)'}`,
    `authorization server offers: ${asScopes?.join(' ') ?? '(not listed)'}`,
  ];
  const unknown = asScopes === undefined ? [] : asked.filter((s) => !asScopes.includes(s));
  if (unknown.length > 0)
    steps.add(
      'scopes',
      'fail',
      [...scopeEvidence, `unknown to the authorization server: ${unknown.join(' ')}`],
      'Define these scopes at the authorization server, or stop asking for them (challenge scope, scopes_supported).',
    );
  else if (prmScopes.includes('offline_access'))
    steps.add(
      'scopes',
      'warn',
      [...scopeEvidence, 'scopes_supported lists offline_access'],
      "Resource metadata SHOULD NOT list offline_access (2026-07-28): it is the client's to ask for.",
    );
  else steps.add('scopes', 'pass', scopeEvidence);
  return { resource, issuer, metadata, scope: asked.length > 0 ? asked.join(' ') : undefined };
}

function checkAudience(steps: Steps, token: string, resource: string, accepted: boolean): void {
  const parts = token.split('.');
  if (parts.length !== 3) {
    steps.add('audience', 'skip', [
      "the token is opaque: its audience cannot be read here (the authorization server's introspection can)",
    ]);
    return;
  }
  let aud: unknown;
  try {
    aud = (JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as { aud?: unknown }).aud;
  } catch {
    steps.add('audience', 'skip', ['the token is not a readable JWT']);
    return;
  }
  const audiences = (Array.isArray(aud) ? aud : [aud]).map(String);
  const ours = audiences.some((a) => canonical(a).toLowerCase() === canonical(resource).toLowerCase());
  if (ours) steps.add('audience', 'pass', [`aud: ${audiences.join(', ')}`]);
  else if (accepted) {
    steps.add(
      'audience',
      'fail',
      [
        `aud: ${audiences.join(', ')}`,
        `the server accepted a token issued for another audience than ${resource}`,
      ],
      'The server MUST reject tokens whose audience is not its resource (RFC 8707; MCP authorization, "token audience binding"): check aud in the verifier. And have the authorization server honour the resource parameter.',
    );
  } else {
    steps.add(
      'audience',
      'fail',
      [
        `aud: ${audiences.join(', ')}`,
        `the authorization server issued a token for another audience than ${resource} (the server rightly refused it)`,
      ],
      "Make the authorization server honour the resource parameter (RFC 8707): the token's aud must be the resource the client asked for.",
    );
  }
}
