import { describe, expect, it } from 'vitest';
import { observedHeaders } from './observed-headers.js';

const SENT: Record<string, string> = { traceparent: '00-abc-01', 'x-multi': 'a, b', host: 'h' };

function headers() {
  let built = 0;
  const all = () => {
    built += 1;
    return new Headers(SENT);
  };
  const read = (name: string) => SENT[name];
  return { headers: observedHeaders(read, all) as Headers, built: () => built };
}

describe('observedHeaders', () => {
  it('is none off HTTP, the full copy where the transport has no reader', () => {
    expect(observedHeaders((name) => SENT[name], undefined)).toBeUndefined();
    expect([...(observedHeaders(undefined, () => new Headers(SENT)) as Headers)]).toHaveLength(3);
  });

  it('reads single headers without building the list, case-insensitively', () => {
    const { headers: h, built } = headers();
    expect(h).toBeInstanceOf(Headers);
    expect(h.get('TraceParent')).toBe('00-abc-01');
    expect(h.has('x-multi')).toBe(true);
    expect(h.has('missing')).toBe(false);
    expect(h.get('missing')).toBeNull();
    expect(built()).toBe(0);
  });

  it('is a whole Headers for everything else, built once', () => {
    const { headers: h, built } = headers();
    expect(Object.fromEntries(h)).toEqual(SENT);
    expect([...h.keys()].sort()).toEqual(['host', 'traceparent', 'x-multi']);
    const seen: string[] = [];
    h.forEach((value, key) => {
      seen.push(`${key}=${value}`);
    });
    expect(seen).toContain('x-multi=a, b');
    h.set('x-added', '1');
    h.delete('host');
    expect(h.get('x-added')).toBe('1');
    expect(h.has('host')).toBe(false);
    expect([...h.entries()]).toHaveLength(3);
    expect(built()).toBe(1);
  });
});
