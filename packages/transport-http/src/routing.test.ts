import type { HttpRoute } from '@pier/core/transport';
import { describe, expect, it } from 'vitest';
import { authorityOf, createRouter, pathOf } from './routing.js';

const handler: HttpRoute['handler'] = () => new Response();
const other: HttpRoute['handler'] = () => new Response();

describe('pathOf', () => {
  it.each([
    ['/mcp', '/mcp'],
    ['/health?x=1', '/health'],
    ['/health#frag', '/health'],
    ['/a?b#c', '/a'],
    ['//mcp', '//mcp'],
    ['/mcp/../health', '/mcp/../health'],
    ['http://127.0.0.1:3000/health?x=1', '/health'],
    ['HTTPS://example.com', '/'],
    ['*', undefined],
    ['ftp://example.com/x', undefined],
    ['http:///mcp', undefined],
    ['http://user@127.0.0.1/mcp', undefined],
    ['', undefined],
  ])('%j → %j', (target, path) => {
    expect(pathOf(target)).toBe(path);
  });
});

describe('authorityOf', () => {
  it.each([
    ['/mcp', undefined],
    ['*', undefined],
    ['http://127.0.0.1:3000/health?x=1', '127.0.0.1:3000'],
    ['HTTP://evil.example', 'evil.example'],
    ['http://evil.example?x=/y', 'evil.example'],
    ['http://[::1]:3000/mcp', '[::1]:3000'],
    ['http:///mcp', ''],
    ['ftp://example.com/x', undefined],
  ])('%j → %j', (target, authority) => {
    expect(authorityOf(target)).toBe(authority);
  });
});

describe('createRouter', () => {
  const health: HttpRoute = { method: 'GET', path: '/health', handler };
  const hooks: HttpRoute = { method: 'post', path: '/hooks', handler };
  const mcpGet: HttpRoute = { method: 'GET', path: '/mcp', handler: other };
  const router = createRouter([health, hooks, mcpGet], {
    path: '/mcp',
    methods: ['GET', 'POST', 'DELETE'],
  });

  it('matches plugin routes on method and exact path, and answers HEAD with the GET route', () => {
    expect(router.match('GET', '/health')).toEqual({ kind: 'route', route: health });
    expect(router.match('HEAD', '/health')).toEqual({ kind: 'route', route: health });
    expect(router.match('POST', '/hooks')).toEqual({ kind: 'route', route: hooks });
    expect(router.match('HEAD', '/hooks')).toEqual({ kind: 'method-not-allowed', allow: 'POST' });
  });

  it('puts plugin routes before the MCP endpoint', () => {
    expect(router.match('GET', '/mcp')).toEqual({ kind: 'route', route: mcpGet });
    expect(router.match('POST', '/mcp')).toEqual({ kind: 'mcp' });
    expect(router.match('PATCH', '/mcp')).toEqual({
      kind: 'method-not-allowed',
      allow: 'GET, HEAD, POST, DELETE',
    });
  });

  it('knows nothing of other paths', () => {
    expect(router.match('GET', '/health/')).toEqual({ kind: 'not-found' });
    expect(router.allowFor('/nowhere')).toBeUndefined();
  });

  it('lists extra methods such as OPTIONS in every Allow', () => {
    const withCors = createRouter(
      [{ method: 'GET', path: '/health', handler }],
      { path: '/mcp', methods: ['POST'] },
      ['OPTIONS'],
    );
    expect(withCors.allowFor('/health')).toBe('GET, HEAD, OPTIONS');
    expect(withCors.allowFor('/mcp')).toBe('POST, OPTIONS');
  });
});
