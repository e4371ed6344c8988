// Plain HTTP for the doctor: every request bounded in time, bodies read as text and kept short for
// evidence, JSON parsed where it is JSON.

export interface Seen {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

export async function request(url: string, init: RequestInit = {}, timeoutMs = 10_000): Promise<Seen> {
  const res = await fetch(url, { redirect: 'manual', ...init, signal: AbortSignal.timeout(timeoutMs) });
  const contentType = res.headers.get('content-type') ?? '';
  // An event stream may stay open: read until the first message, not to the end.
  const text = contentType.includes('text/event-stream') ? await firstEvent(res) : await res.text();
  let json: unknown;
  try {
    json = JSON.parse(
      contentType.includes('text/event-stream') ? (/^data: ?(.*)$/m.exec(text)?.[1] ?? '') : text,
    );
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

async function firstEvent(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (reader === undefined) return '';
  const decoder = new TextDecoder();
  let text = '';
  while (!/\n\n/.test(text) && text.length < 1_000_000) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

export function short(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The canonical form of a resource URL for comparison: lowercase scheme and host, no fragment, no trailing slash. */
export function canonical(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href.replace(/\/$/, '');
  } catch {
    return url;
  }
}

export function wwwAuthenticateParams(header: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const match of header.matchAll(/([\w-]+)=(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params[(match[1] ?? '').toLowerCase()] = (match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1');
  }
  return params;
}
