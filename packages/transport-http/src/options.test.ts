import { describe, expect, it } from 'vitest';
import { HttpTransportError } from './errors.js';
import type { HttpListenOptions } from './options.js';
import { hostnameOf, originPatternOf, resolveHttpOptions } from './options.js';

function issuesOf(options: unknown): readonly string[] {
  try {
    resolveHttpOptions(options as HttpListenOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpTransportError);
    expect(error).toMatchObject({ code: 'HTTP_OPTIONS_INVALID' });
    return (error as HttpTransportError).issues;
  }
  return [];
}

describe('resolveHttpOptions', () => {
  it('fills in the documented defaults', () => {
    expect(resolveHttpOptions({})).toEqual({
      host: '127.0.0.1',
      port: 3000,
      path: '/mcp',
      sessions: false,
      maxSessions: 10_000,
      sessionIdleTimeoutMs: 1_800_000,
      resumability: undefined,
      maxBodyBytes: 4_194_304,
      allowedHosts: [],
      allowedOrigins: [],
      cors: undefined,
      drainDelayMs: undefined,
      shutdownTimeoutMs: 10_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
    });
  });

  it('normalizes allow-lists and CORS origins', () => {
    const resolved = resolveHttpOptions({
      allowedHosts: ['MCP.Example.com:8443', '[::1]'],
      allowedOrigins: ['https://App.example.com/', 'tools.example.com'],
      cors: { origins: ['https://app.example.com:443'] },
      resumability: { retryMs: 1_000 },
      sessions: true,
    });
    expect(resolved.allowedHosts).toEqual(['mcp.example.com', '[::1]']);
    expect(resolved.allowedOrigins).toEqual([
      { origin: 'https://app.example.com' },
      { hostname: 'tools.example.com' },
    ]);
    expect(resolved.cors).toEqual({ origins: ['https://app.example.com'], maxAgeSeconds: 600 });
    expect(resolved.resumability).toEqual({ maxEventsPerSession: 1_000, retryMs: 1_000 });
  });

  it('collects every problem into one HTTP_OPTIONS_INVALID error', () => {
    const issues = issuesOf({
      port: 70_000,
      path: 'mcp',
      sessions: 'yes',
      maxSessions: 0,
      maxBodyBytes: 1.5,
      allowedHosts: ['has space'],
      allowedOrigins: 'https://x.example',
      cors: { origins: ['not an origin'] },
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 30_000,
    });
    expect(issues).toEqual([
      'path must start with "/" and hold no "?", "#" or spaces, got "mcp"',
      'sessions must be true or false, got "yes"',
      'headersTimeoutMs (60000) must not exceed requestTimeoutMs (30000)',
      'port must be an integer from 0 to 65535, got 70000',
      'maxSessions must be an integer from 1 to 10000000, got 0',
      'maxBodyBytes must be an integer from 1 to 1073741824, got 1.5',
      'allowedHosts: "has space" is not a host name',
      'allowedOrigins must be a list of non-empty strings',
      'cors.origins: "not an origin" is not an origin such as https://app.example.com',
    ]);
  });

  it('refuses options that are not an object', () => {
    expect(issuesOf(null)).toEqual(['options must be an object']);
  });

  it('warns about unknown keys and about resumability without sessions, but accepts them', () => {
    const warnings: string[] = [];
    const options = {
      port: 0,
      transport: 'streamable-http',
      maxSesions: 5,
      resumability: {},
    } as HttpListenOptions;
    resolveHttpOptions(options, (message) => warnings.push(message));
    expect(warnings).toEqual([
      'streamable-http: unknown option "maxSesions" is ignored',
      'streamable-http: resumability only applies with sessions: true; it is ignored',
    ]);
  });
});

describe('host names and origins', () => {
  it('reads host names the way Host headers are compared', () => {
    expect(hostnameOf('Example.COM:8080')).toBe('example.com');
    expect(hostnameOf('[::1]:3000')).toBe('[::1]');
    expect(hostnameOf('a/b')).toBeUndefined();
    expect(hostnameOf('user@host')).toBeUndefined();
  });

  it('tells exact origins from host names', () => {
    expect(originPatternOf('http://localhost:5173')).toEqual({ origin: 'http://localhost:5173' });
    expect(originPatternOf('app.example.com')).toEqual({ hostname: 'app.example.com' });
    expect(originPatternOf('https://app.example.com/path')).toBeUndefined();
  });
});
