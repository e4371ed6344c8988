// Test helper (not built): serves the MCP Apps test host (apps-host/host.ts) on one loopback origin and its
// sandbox proxy (apps-host/sandbox.ts) on another, as the extension requires of a web host. The host page's
// MCP client talks to its own origin's /mcp, relayed byte for byte to the Pier server: the page needs no
// CORS from the server, as a web host's backend would hold the connection. /unlinked/mcp relays the same
// but takes the view links out of tools/list: the negative control.
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HOST_DIR = join(dirname(fileURLToPath(import.meta.url)), 'apps-host');

/** The running host: the page to open (with its query) and how to stop it. */
export interface AppsHost {
  /** `http://127.0.0.1:<port>/host.html?...`; `unlinked` relays through /unlinked/mcp. */
  url(options?: { era?: '2025-11-25'; unlinked?: boolean }): string;
  close(): Promise<void>;
}

/** Bundles the host and the sandbox for the browser and serves them; `mcpUrl` is the Pier server's. */
export async function startAppsHost(mcpUrl: string): Promise<AppsHost> {
  const [hostJs, sandboxJs] = await Promise.all(['host.ts', 'sandbox.ts'].map((file) => bundle(file)));
  const host = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://host').pathname;
    if (path === '/host.html') return send(res, 'text/html', HOST_PAGE);
    if (path === '/host.js') return send(res, 'text/javascript', hostJs as string);
    if (path === '/mcp' || path === '/unlinked/mcp') return relay(req, res, mcpUrl, path !== '/mcp');
    send(res, 'text/plain', 'not found', 404);
  });
  const sandbox = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (url.pathname === '/sandbox.js') return send(res, 'text/javascript', sandboxJs as string);
    if (url.pathname !== '/sandbox.html') return send(res, 'text/plain', 'not found', 404);
    // The view's declared CSP, or the extension's restrictive default: the inner frame inherits it.
    const csp = url.searchParams.get('csp');
    send(res, 'text/html', SANDBOX_PAGE, 200, {
      'content-security-policy': contentSecurityPolicy(csp === null ? {} : JSON.parse(csp)),
    });
  });
  const sandboxUrl = `http://127.0.0.1:${port(sandbox)}/sandbox.html`;
  return {
    url: ({ era, unlinked } = {}) => {
      const query = new URLSearchParams({ sandbox: sandboxUrl });
      if (era !== undefined) query.set('era', era);
      if (unlinked === true) query.set('mcp', '/unlinked/mcp');
      return `http://127.0.0.1:${port(host)}/host.html?${query}`;
    },
    close: async () => {
      await Promise.all([host, sandbox].map(stop));
    },
  };
}

/** The CSP the extension asks hosts to build from `_meta.ui.csp` (its restrictive default when empty). */
export function contentSecurityPolicy(csp: {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}): string {
  const list = (origins: string[] | undefined, fallback: string) =>
    // A space, a quote or a semicolon would smuggle in another source or directive.
    origins?.filter((origin) => !/[\s;'"]/.test(origin)).join(' ') || fallback;
  const resources = list(csp.resourceDomains, '');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' ${resources}`,
    `media-src 'self' data: ${resources}`,
    `connect-src ${list(csp.connectDomains, "'none'")}`,
    `frame-src ${list(csp.frameDomains, "'none'")}`,
    `base-uri ${list(csp.baseUriDomains, "'self'")}`,
    "object-src 'none'",
  ]
    .map((directive) => directive.trim())
    .join('; ');
}

/** Relays one request to the Pier server, streaming the answer back; `unlink` strips view links from tools/list. */
function relay(req: IncomingMessage, res: ServerResponse, target: string, unlink: boolean): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const headers = { ...req.headers };
    for (const name of ['host', 'origin', 'referer', 'connection', 'cookie']) delete headers[name];
    const upstream = request(target, { method: req.method, headers }, (answer) => {
      const out = { ...answer.headers };
      for (const name of ['connection', 'keep-alive', 'transfer-encoding']) delete out[name];
      if (!(unlink && isToolsList(body))) {
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
        return;
      }
      let text = '';
      answer.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      answer.on('end', () => {
        delete out['content-length'];
        res.writeHead(answer.statusCode ?? 502, out).end(withoutViewLinks(text));
      });
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    });
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  });
}

function isToolsList(body: Buffer): boolean {
  try {
    return (JSON.parse(body.toString('utf8')) as { method?: unknown }).method === 'tools/list';
  } catch {
    return false;
  }
}

/** A tools/list answer (JSON, or the `data:` lines of an event stream) without `_meta.ui` links. */
function withoutViewLinks(text: string): string {
  const strip = (json: string) => {
    const message = JSON.parse(json) as { result?: { tools?: { _meta?: Record<string, unknown> }[] } };
    for (const tool of message.result?.tools ?? []) {
      if (tool._meta === undefined) continue;
      delete tool._meta.ui;
      delete tool._meta['ui/resourceUri'];
    }
    return JSON.stringify(message);
  };
  if (text.trimStart().startsWith('{')) return strip(text);
  return text.replace(/^data: (.+)$/gm, (_line, json: string) => `data: ${strip(json)}`);
}

async function bundle(file: string): Promise<string> {
  const result = await build({
    entryPoints: [join(HOST_DIR, file)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  });
  return result.outputFiles[0]?.text ?? '';
}

function send(
  res: ServerResponse,
  type: string,
  body: string,
  status = 200,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': `${type}; charset=utf-8`,
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function port(server: Server): number {
  return (server.address() as AddressInfo).port;
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

const HOST_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Pier test host</title>
<style>
  body { margin: 0; font: 15px system-ui, sans-serif; background: #eef0f4; color: #1c1c1e; }
  main { max-width: 760px; margin: 0 auto; padding: 24px; }
  h1 { font-size: 16px; color: #6b6b70; margin: 0 0 16px; }
  .card { background: #fff; border-radius: 12px; padding: 16px; box-shadow: 0 1px 3px #0002; margin-bottom: 16px; }
  .card h2 { font-size: 13px; font-weight: 600; color: #6b6b70; margin: 0 0 12px; }
  iframe { display: block; width: 100%; height: 320px; border: 0; }
  iframe.bordered { border: 1px solid #d8d8de; border-radius: 8px; }
  pre.result { white-space: pre-wrap; background: #f7f7f9; padding: 12px; border-radius: 8px; margin: 0; }
  dialog { border: 0; border-radius: 12px; padding: 20px; box-shadow: 0 8px 32px #0004; max-width: 420px; }
  dialog::backdrop { background: #0004; }
  dialog menu { display: flex; justify-content: flex-end; gap: 8px; padding: 0; margin: 16px 0 0; }
  dialog button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid #c9c9cf; background: #fff; }
  dialog button[value="accept"] { background: #c62828; border-color: #c62828; color: #fff; }
</style>
</head>
<body>
<main><h1>Pier test host (MCP Apps, AppBridge)</h1></main>
<dialog id="ask"><form method="dialog"></form></dialog>
<script type="module" src="/host.js"></script>
</body>
</html>`;

const SANDBOX_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%}</style></head>
<body><script type="module" src="/sandbox.js"></script></body></html>`;
