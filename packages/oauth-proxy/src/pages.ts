// The two pages a person sees: the consent page (which MCP client, sending codes where, asking for what) and
// the error page. Plain HTML, no script, one inline style allowed by a per-response nonce; every value from
// a client escaped.
import { randomToken } from './crypto.js';
import { escapeHtml, oauthError, page, wantsHtml } from './web.js';

export interface ConsentView {
  readonly serverName: string;
  readonly providerName: string;
  readonly clientName: string | undefined;
  readonly clientId: string;
  /** The client is named by a metadata document at this host (verified by fetching it); else self-registered. */
  readonly documentHost: string | undefined;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly scopeDescriptions: Readonly<Record<string, string>>;
  readonly providerScopes: readonly string[];
  readonly action: string;
  readonly requestId: string;
  readonly csrf: string;
  readonly nonce: string;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
h1{font-size:1.4rem}dt{font-weight:600;margin-top:.75rem}dd{margin:0}code{word-break:break-all;background:#f3f3f3;padding:0 .2rem}
.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:.5rem .75rem}fieldset{border:1px solid #ccc;margin:1rem 0}
label{display:block;margin:.25rem 0}.buttons{display:flex;gap:1rem;margin-top:1.25rem}button{font-size:1rem;padding:.5rem 1.25rem}
.error{border-left:4px solid #c62828;padding:.5rem .75rem;background:#fdecea}`;

function layout(title: string, nonce: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${escapeHtml(nonce)}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function consentPage(view: ConsentView): string {
  const client = view.clientName ?? 'An unnamed MCP client';
  const redirect = URL.canParse(view.redirectUri) ? new URL(view.redirectUri) : undefined;
  const loopback = redirect !== undefined && ['127.0.0.1', '[::1]', 'localhost'].includes(redirect.hostname);
  const identity =
    view.documentHost !== undefined
      ? `Its description was published at <strong>${escapeHtml(view.documentHost)}</strong>.`
      : 'It registered itself: its name is what it says it is, nobody checked it.';
  const scopes =
    view.scopes.length === 0
      ? '<p>It asks for no particular permission.</p>'
      : `<fieldset>
<legend>It asks to</legend>
${view.scopes
  .map((scope) => {
    const description = view.scopeDescriptions[scope];
    return `<label><input type="checkbox" name="scope" value="${escapeHtml(scope)}" checked> <code>${escapeHtml(scope)}</code>${description === undefined ? '' : ` — ${escapeHtml(description)}`}</label>`;
  })
  .join('\n')}
</fieldset>`;
  const providerScopes =
    view.providerScopes.length === 0
      ? ''
      : ` (with ${view.providerScopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(', ')})`;
  return layout(
    `Allow ${client} to use ${view.serverName}?`,
    view.nonce,
    `<h1>Allow <strong>${escapeHtml(client)}</strong> to use ${escapeHtml(view.serverName)} as you?</h1>
<p>${identity} If you approve, you sign in with ${escapeHtml(view.providerName)}${providerScopes}, and this client can then act as you on ${escapeHtml(view.serverName)}. Approve only if you started this from an MCP client you trust.</p>
<dl>
<dt>Client ID</dt><dd><code>${escapeHtml(view.clientId)}</code></dd>
<dt>After you approve, you are sent back to</dt><dd><code>${escapeHtml(view.redirectUri)}</code></dd>
</dl>
${loopback ? '<p class="warn">This address is on your own computer: any program running there could receive the result. Approve only if you just started the login from a program on this computer.</p>' : ''}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="request" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
${scopes}
<div class="buttons">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  );
}

export function errorPage(error: string, description: string, nonce: string): string {
  return layout(
    'Sign-in failed',
    nonce,
    `<h1>Sign-in failed</h1>
<p class="error"><code>${escapeHtml(error)}</code>: ${escapeHtml(description)}</p>
<p>Nothing was shared with the application. Close this window and start again from your MCP client.</p>`,
  );
}

/**
 * A refusal the browser must not be redirected with (unknown client, unregistered redirect URI, bad state):
 * the error page for a person, the OAuth error JSON for a program. The same status and error code either way.
 */
export function refusal(request: Request, status: number, error: string, description: string): Response {
  if (!wantsHtml(request)) return oauthError(status, error, description);
  const nonce = randomToken(16);
  return page(status, errorPage(error, description, nonce), nonce);
}
