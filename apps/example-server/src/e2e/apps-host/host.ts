// A small MCP Apps host for the browser test, built on the extension's host side (`AppBridge`): the SDK v2
// client in the page is its MCP client (over the page's own /mcp, which the test relays to the Pier server).
// `host.runTool(name, args)` stands in for the model calling a tool: the host calls it and, when the tool
// links a view, reads the view, frames it through a sandbox proxy on another origin, and hands it the input
// and the result; the view's own calls go through the bridge to the server. Questions the server asks
// (elicitation) show as a form the user (the test) answers.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  AppBridge,
  getToolUiResourceUri,
  type McpUiResourceCsp,
  type McpUiResourcePermissions,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/app-bridge';

const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
const HOST_INFO = { name: 'pier-test-host', version: '1.0.0' };

const params = new URLSearchParams(location.search);
/** Where the sandbox proxy is served: another origin than this page's. */
const sandboxUrl = new URL(params.get('sandbox') ?? '');
const endpoint = new URL(params.get('mcp') ?? '/mcp', location.href);
const legacy = params.get('era') === '2025-11-25';

const client = new Client(HOST_INFO, {
  capabilities: {
    elicitation: { form: {} },
    extensions: { [APPS_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } },
  },
  versionNegotiation: { mode: legacy ? 'legacy' : 'auto' },
});
client.setRequestHandler('elicitation/create', async (request) => {
  const { message } = request.params;
  const schema = 'requestedSchema' in request.params ? request.params.requestedSchema : undefined;
  return ask(message, (schema?.properties ?? {}) as Record<string, { type?: string; title?: string }>);
});
await client.connect(new StreamableHTTPClientTransport(endpoint));
const { tools } = await client.listTools();

/** What the test drives and reads. */
const host = {
  protocolVersion: client.getNegotiatedProtocolVersion(),
  tools,
  /** Calls a tool as the model would, and shows its view, or its text when it links none. */
  async runTool(name: string, args: Record<string, unknown>): Promise<'view' | 'text'> {
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool === undefined) throw new Error(`the server lists no tool ${name}`);
    const card = transcript(`The model called ${name}`);
    const result = client.callTool({ name, arguments: args });
    const uri = getToolUiResourceUri(tool);
    if (uri === undefined) {
      const text = card.appendChild(document.createElement('pre'));
      text.className = 'result';
      text.textContent = ((await result).content as { text?: string }[]).map((b) => b.text ?? '').join('\n');
      return 'text';
    }
    await showView(card, uri, args, result);
    return 'view';
  },
};
Object.assign(window, { host });
document.body.dataset.ready = 'true';

async function showView(
  card: HTMLElement,
  uri: string,
  args: Record<string, unknown>,
  result: ReturnType<Client['callTool']>,
): Promise<void> {
  const { contents } = await client.readResource({ uri });
  const content = contents[0];
  if (content === undefined || contents.length !== 1) throw new Error(`${uri}: expected one content item`);
  if (content.mimeType !== RESOURCE_MIME_TYPE)
    throw new Error(`${uri}: unsupported MIME type ${content.mimeType}`);
  const html = 'text' in content ? content.text : atob(content.blob);
  const ui = (content._meta?.ui ?? {}) as {
    csp?: McpUiResourceCsp;
    permissions?: McpUiResourcePermissions;
    prefersBorder?: boolean;
  };

  const frame = document.createElement('iframe');
  frame.id = 'view';
  frame.title = uri;
  frame.className = ui.prefersBorder === false ? 'borderless' : 'bordered';
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  const url = new URL(sandboxUrl);
  url.searchParams.set('host', location.origin);
  if (ui.csp !== undefined) url.searchParams.set('csp', JSON.stringify(ui.csp));
  const proxyReady = new Promise<void>((resolve) => {
    window.addEventListener('message', function ready(event: MessageEvent) {
      if (event.source !== frame.contentWindow) return;
      if ((event.data as { method?: string })?.method !== 'ui/notifications/sandbox-proxy-ready') return;
      window.removeEventListener('message', ready);
      resolve();
    });
  });
  frame.src = url.href;
  card.append(frame);
  await proxyReady;

  const bridge = new AppBridge(
    client,
    HOST_INFO,
    {
      serverTools: {},
      serverResources: {},
      logging: {},
    },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web' } },
  );
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(frame.contentWindow ?? undefined, frame.contentWindow!));
  // The bridge forwards the view's tools/call to the server; the extension asks hosts to refuse tools
  // whose visibility leaves the app out.
  const forward = bridge.oncalltool;
  bridge.oncalltool = async (call, extra) => {
    const target = tools.find((candidate) => candidate.name === call.name);
    const visibility = (target?._meta?.ui as { visibility?: string[] } | undefined)?.visibility;
    if (target === undefined || (visibility !== undefined && !visibility.includes('app'))) {
      throw new Error(`the view may not call ${call.name}`);
    }
    if (forward === undefined) throw new Error('the server has no tools');
    return forward(call, extra);
  };
  await bridge.sendSandboxResourceReady({
    html,
    ...(ui.csp !== undefined && { csp: ui.csp }),
    ...(ui.permissions !== undefined && { permissions: ui.permissions }),
  });
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(await result);
}

function transcript(title: string): HTMLElement {
  const card = document.createElement('section');
  card.className = 'card';
  card.appendChild(document.createElement('h2')).textContent = title;
  document.querySelector('main')?.append(card);
  return card;
}

/** Shows the server's question as a form; resolves with what the user chose. */
function ask(
  message: string,
  fields: Record<string, { type?: string; title?: string }>,
): Promise<{ action: 'accept'; content: Record<string, string | boolean> } | { action: 'decline' }> {
  const dialog = document.querySelector<HTMLDialogElement>('#ask');
  const form = dialog?.querySelector('form');
  if (dialog === null || form === null || form === undefined) throw new Error('host.html has no #ask dialog');
  form.replaceChildren();
  form.appendChild(document.createElement('p')).textContent = message;
  for (const [name, field] of Object.entries(fields)) {
    const label = form.appendChild(document.createElement('label'));
    const input = label.appendChild(document.createElement('input'));
    input.name = name;
    input.type = field.type === 'boolean' ? 'checkbox' : 'text';
    label.append(` ${field.title ?? name}`);
  }
  const buttons = form.appendChild(document.createElement('menu'));
  for (const [value, text] of [
    ['decline', 'Decline'],
    ['accept', 'Submit'],
  ] as const) {
    const button = buttons.appendChild(document.createElement('button'));
    button.value = value;
    button.textContent = text;
  }
  dialog.showModal();
  return new Promise((resolve) => {
    form.addEventListener(
      'submit',
      (event) => {
        event.preventDefault();
        dialog.close();
        if ((event.submitter as HTMLButtonElement | null)?.value !== 'accept') {
          resolve({ action: 'decline' });
          return;
        }
        const content: Record<string, string | boolean> = {};
        for (const input of form.querySelectorAll('input')) {
          content[input.name] = input.type === 'checkbox' ? input.checked : input.value;
        }
        resolve({ action: 'accept', content });
      },
      { once: true },
    );
  });
}
