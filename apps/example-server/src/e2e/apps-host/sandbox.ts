// The sandbox proxy of the test host (MCP Apps, "Sandbox proxy"): a page on another origin than the host,
// framed by it, that loads the view's HTML into an inner frame and relays messages both ways. Its CSP, which
// the inner frame inherits, is the response header the test server builds from the view's `_meta.ui.csp`.
const params = new URLSearchParams(location.search);
const HOST_ORIGIN = params.get('host') ?? '';
const PROXY_READY = 'ui/notifications/sandbox-proxy-ready';
const RESOURCE_READY = 'ui/notifications/sandbox-resource-ready';

if (window.parent === window || HOST_ORIGIN === '' || HOST_ORIGIN === location.origin) {
  throw new Error('sandbox.html runs framed by a host on another origin, named by ?host=');
}

const inner = document.createElement('iframe');
inner.title = 'view';
inner.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
document.body.append(inner);

window.addEventListener('message', (event: MessageEvent) => {
  const message = event.data as { method?: string; params?: { html?: unknown; sandbox?: unknown } } | null;
  if (event.source === window.parent) {
    if (event.origin !== HOST_ORIGIN) return;
    if (message?.method === RESOURCE_READY) {
      const { html, sandbox } = message.params ?? {};
      if (typeof sandbox === 'string') inner.setAttribute('sandbox', sandbox);
      if (typeof html !== 'string') return;
      // Written into the same-origin inner frame, the view runs under this page's CSP.
      const doc = inner.contentDocument;
      if (doc === null) throw new Error('the inner frame has no document');
      doc.open();
      doc.write(html);
      doc.close();
      return;
    }
    inner.contentWindow?.postMessage(message, '*');
  } else if (event.source === inner.contentWindow && event.origin === location.origin) {
    window.parent.postMessage(message, HOST_ORIGIN);
  }
});

window.parent.postMessage({ jsonrpc: '2.0', method: PROXY_READY, params: {} }, HOST_ORIGIN);
