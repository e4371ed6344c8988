// Test helper (excluded from the build): the person at the browser. A user agent over real HTTP that keeps
// cookies the way a browser does (by host, across ports, with paths), follows redirects, reads the HTML
// forms it is shown and submits them with the headers a browser sends (Origin, Sec-Fetch-Site). It drives
// the proxy's consent page and the provider's own login and consent pages; nothing else is faked.

interface Cookie {
  readonly value: string;
  readonly path: string;
}

export interface Form {
  readonly action: string;
  readonly method: string;
  /** Hidden and text inputs, and checked checkboxes, in page order. */
  readonly fields: readonly (readonly [string, string])[];
  /** Submit buttons that carry a value. */
  readonly buttons: readonly (readonly [string, string])[];
}

export interface Page {
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  readonly html: string;
  readonly forms: readonly Form[];
}

export class Browser {
  /** Cookies by host name (all ports, as browsers do), then by name. */
  readonly #jar = new Map<string, Map<string, Cookie>>();
  /** Every response the browser got: what a canary test scans. */
  readonly seen: Page[] = [];

  /** One request, no redirect followed. */
  async request(
    url: string,
    init: { method?: string; body?: string; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const target = new URL(url);
    const cookies = [...(this.#jar.get(target.hostname) ?? [])]
      .filter(([, cookie]) => target.pathname.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join('; ');
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
        ...(cookies !== '' && { cookie: cookies }),
        ...init.headers,
      },
      ...(init.body !== undefined && { body: init.body }),
      signal: AbortSignal.timeout(10_000),
    });
    for (const line of res.headers.getSetCookie()) this.#store(target, line);
    const html = await res.text();
    const page: Page = { url, status: res.status, headers: res.headers, html, forms: formsOf(html, url) };
    this.seen.push(page);
    return page;
  }

  /** Opens `url` and follows redirects until a page that is not one, or a URL `stop` accepts (not fetched). */
  async open(url: string, stop: (url: string) => boolean = () => false, maxHops = 20): Promise<Page> {
    const page = await this.request(url);
    return this.#follow(page, stop, maxHops);
  }

  /** Submits `form` with `values` (overriding its fields) and `button`, then follows redirects. */
  async submit(
    from: Page,
    form: Form,
    values: Record<string, string | string[]> = {},
    stop: (url: string) => boolean = () => false,
  ): Promise<Page> {
    const body = new URLSearchParams();
    const overridden = new Set(Object.keys(values));
    for (const [name, value] of form.fields) if (!overridden.has(name)) body.append(name, value);
    for (const [name, value] of Object.entries(values)) {
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
    }
    const origin = new URL(from.url).origin;
    const sameOrigin = new URL(form.action).origin === origin;
    const page = await this.request(form.action, {
      method: 'POST',
      body: body.toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: originHeader(origin, sameOrigin, from.headers.get('referrer-policy')),
        'sec-fetch-site': sameOrigin ? 'same-origin' : 'cross-site',
      },
    });
    return this.#follow(page, stop, 20);
  }

  /** The value of a cookie this browser holds for `host`. */
  cookie(host: string, name: string): string | undefined {
    return this.#jar.get(host)?.get(name)?.value;
  }

  /** Forgets every cookie of `host` (another browser, as far as that site can tell). */
  forget(host: string): void {
    this.#jar.delete(host);
  }

  async #follow(first: Page, stop: (url: string) => boolean, maxHops: number): Promise<Page> {
    let page = first;
    for (let hop = 0; page.status >= 300 && page.status < 400; hop++) {
      if (hop >= maxHops) throw new Error(`the browser gave up after ${maxHops} redirects`);
      const next = new URL(page.headers.get('location') ?? '', page.url).href;
      if (stop(next)) return { ...page, url: next };
      page = await this.request(next);
    }
    return page;
  }

  #store(url: URL, line: string): void {
    const [pair = '', ...attributes] = line.split(';');
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    const path = attributes.map((a) => /^\s*path=(.*)$/i.exec(a)?.[1]).find((p) => p !== undefined) ?? '/';
    const gone = attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
    let cookies = this.#jar.get(url.hostname);
    if (cookies === undefined) {
      cookies = new Map();
      this.#jar.set(url.hostname, cookies);
    }
    if (gone) cookies.delete(name);
    else cookies.set(name, { value, path: path.trim() });
  }
}

/**
 * The `Origin` a browser sends with a form POST (Fetch, "append a request Origin header"): `null` when the
 * page's referrer policy withholds it — `no-referrer` always, `same-origin` for another origin.
 */
function originHeader(origin: string, sameOrigin: boolean, policy: string | null): string {
  const last = (policy ?? '').split(',').pop()?.trim().toLowerCase();
  if (last === 'no-referrer' || (last === 'same-origin' && !sameOrigin)) return 'null';
  return origin;
}

/** The forms of a page: action, method, inputs (checked checkboxes only) and valued submit buttons. */
function formsOf(html: string, base: string): Form[] {
  const forms: Form[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const attributes = match[1] ?? '';
    const inner = match[2] ?? '';
    const action = attribute(attributes, 'action') ?? base;
    const fields: [string, string][] = [];
    for (const input of inner.matchAll(/<input\b([^>]*)>/gi)) {
      const tag = input[1] ?? '';
      const name = attribute(tag, 'name');
      if (name === undefined) continue;
      const type = (attribute(tag, 'type') ?? 'text').toLowerCase();
      if ((type === 'checkbox' || type === 'radio') && !/\bchecked\b/i.test(tag)) continue;
      if (type === 'submit') continue;
      fields.push([name, attribute(tag, 'value') ?? (type === 'checkbox' ? 'on' : '')]);
    }
    const buttons: [string, string][] = [];
    for (const button of inner.matchAll(/<button\b([^>]*)>/gi)) {
      const name = attribute(button[1] ?? '', 'name');
      const value = attribute(button[1] ?? '', 'value');
      if (name !== undefined && value !== undefined) buttons.push([name, value]);
    }
    forms.push({
      action: new URL(decodeEntities(action), base).href,
      method: (attribute(attributes, 'method') ?? 'get').toLowerCase(),
      fields,
      buttons,
    });
  }
  return forms;
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  if (match === null) return undefined;
  return decodeEntities(match[1] ?? match[2] ?? match[3] ?? '');
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** What the person does on each page until the MCP client's callback: consent, sign in, consent upstream. */
export interface LoginChoices {
  /** The name typed on the provider's login page. Default `alice`. */
  readonly login?: string;
  /** The answer on the proxy's consent page. Default `approve`. */
  readonly decision?: 'approve' | 'deny';
  /** The scopes left checked on the consent page. Default: as shown (all checked). */
  readonly scopes?: readonly string[];
}

/**
 * Plays the person from `start` (an authorization URL of the proxy, or of the provider) through the proxy's
 * consent page and the provider's login and consent pages, until a redirect `stop` accepts. Returns that
 * URL, not opened. Throws on any page it does not expect.
 */
export async function walk(
  browser: Browser,
  start: string,
  stop: (url: string) => boolean,
  choices: LoginChoices = {},
): Promise<string> {
  let page = await browser.open(start, stop);
  for (let step = 0; step < 10; step++) {
    if (stop(page.url)) return page.url;
    const form = page.forms[0];
    if (page.status !== 200 || form === undefined) {
      throw new Error(`the browser got ${page.status} at ${page.url}: ${page.html.slice(0, 400)}`);
    }
    if (form.action.endsWith('/oauth/consent')) {
      page = await browser.submit(
        page,
        form,
        {
          decision: choices.decision ?? 'approve',
          ...(choices.scopes !== undefined && { scope: [...choices.scopes] }),
        },
        stop,
      );
    } else if (form.fields.some(([name]) => name === 'login')) {
      page = await browser.submit(page, form, { login: choices.login ?? 'alice', password: 'any' }, stop);
    } else if (form.fields.some(([name, value]) => name === 'prompt' && value === 'consent')) {
      page = await browser.submit(page, form, {}, stop);
    } else {
      throw new Error(`the browser does not know the page at ${page.url}`);
    }
  }
  throw new Error('the login did not finish in 10 pages');
}

/**
 * The whole login, from the authorization URL the MCP client opened to the redirect to `callbackUrl`, which
 * is then opened as a browser would (the client's loopback server receives it). Returns the callback's
 * query (`code`, `state`, `iss`, or `error`).
 */
export async function logIn(
  browser: Browser,
  authorizationUrl: string,
  callbackUrl: string,
  choices: LoginChoices = {},
): Promise<URLSearchParams> {
  const url = await walk(browser, authorizationUrl, (next) => next.startsWith(`${callbackUrl}?`), choices);
  await browser.request(url);
  return new URL(url).searchParams;
}

/** The login up to the provider's redirect to the proxy's callback, returned unopened (to tamper with it). */
export function toProxyCallback(
  browser: Browser,
  start: string,
  issuer: string,
  choices: LoginChoices = {},
): Promise<string> {
  return walk(browser, start, (next) => next.startsWith(`${issuer}/oauth/callback?`), choices);
}
