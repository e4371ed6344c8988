// Test helper (not built): one bounded HTTP request over a real socket.
import { type Agent, type IncomingHttpHeaders, request } from 'node:http';

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The parsed body, or `undefined` when it is empty. */
  readonly json: unknown;
}

export interface SendOptions {
  readonly method?: string;
  /** Default: a fresh connection per request (`agent: false`). */
  readonly agent?: Agent;
  /** The request fails after this long. Default 10 s. */
  readonly timeoutMs?: number;
}

/** Sends one request and reads the whole answer. */
export function send(url: string, options: SendOptions = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? 'GET',
      agent: options.agent ?? false,
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: text === '' ? undefined : JSON.parse(text),
          });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.end();
  });
}

/** A promise plus the function that settles it, for checks a test releases by hand. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
