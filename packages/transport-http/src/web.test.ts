import { describe, expect, it } from 'vitest';
import { lazyRequest } from './web.js';

describe('lazyRequest', () => {
  it('builds nothing until read, then behaves as the real Request', async () => {
    let built = 0;
    const request = lazyRequest(() => {
      built++;
      return new Request('http://127.0.0.1:3000/mcp?x=1', {
        method: 'POST',
        headers: { 'x-pier-test': 'yes' },
        body: '{"a":1}',
      });
    });
    expect(Boolean(request)).toBe(true);
    expect(request instanceof Request).toBe(true);
    expect(built).toBe(0);
    expect(request.headers.get('x-pier-test')).toBe('yes');
    expect(request.method).toBe('POST');
    expect(new URL(request.url).searchParams.get('x')).toBe('1');
    expect('signal' in request).toBe(true);
    expect(await request.clone().json()).toEqual({ a: 1 });
    expect(built).toBe(1);
  });
});
