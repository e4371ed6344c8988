// One HTTP request on its own connection, with full control of the headers (a forged Host, no Accept), and
// the whole answer. Bounded by a timeout.
import { request as httpRequest } from 'node:http';

export interface Sent {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Send the body in 64 KiB chunks without a Content-Length. */
  readonly chunked?: boolean;
}

export interface Received {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  readonly json: unknown;
}

export function send(url: string, sent: Sent = {}, timeoutMs = 10_000): Promise<Received> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: sent.method ?? 'POST',
        headers: sent.headers ?? {},
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.on('error', reject);
    if (sent.body === undefined) req.end();
    else if (!sent.chunked) req.end(sent.body);
    else {
      const bytes = Buffer.from(sent.body);
      let offset = 0;
      const pump = (): void => {
        while (offset < bytes.length) {
          const chunk = bytes.subarray(offset, offset + 64 * 1024);
          offset += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    }
  });
}
