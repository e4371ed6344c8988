// Checks what connect() is given before anything starts, and says exactly what is wrong.

import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  Root,
} from '@modelcontextprotocol/client';
import type { PierServer, StreamableHttpListenOptions } from '@pier/core';
import { describeValue, OptionIssues } from '@pier/core';
import { ERAS, type Era } from './eras.js';
import { optionsError } from './errors.js';

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** The protocol revision the client speaks, or `auto` to negotiate. Default `2026-07-28`. */
  readonly era?: Era;
  /**
   * `memory`: linked in-process transports, one engine connection, as stdio has (no
   * port, no listen). `http`: real streamable HTTP on 127.0.0.1 and a free port. Default `memory` for a
   * server, `http` for a URL.
   */
  readonly transport?: 'memory' | 'http';
  /** `listen` options when `connect` starts the server over HTTP (say `{ sessions: true }`). */
  readonly http?: Omit<StreamableHttpListenOptions, 'transport'>;
  /** Answers `elicitation/create`; declares the `elicitation` capability. */
  readonly onElicit?: (request: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;
  /** Answers `sampling/createMessage`; declares the `sampling` capability. */
  readonly onSample?: (
    request: CreateMessageRequest['params'],
  ) => CreateMessageResult | Promise<CreateMessageResult>;
  /** Answers `roots/list`; declares the `roots` capability. */
  readonly roots?: readonly Root[] | (() => readonly Root[] | Promise<readonly Root[]>);
  /** The client's name and version. Default `{ name: 'pier-testing', version: '0.0.0' }`. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Bound on the connection handshake. Default 10 000 ms. */
  readonly timeoutMs?: number;
}

const KNOWN = ['era', 'transport', 'http', 'onElicit', 'onSample', 'roots', 'clientInfo', 'timeoutMs'];

export interface CheckedConnectOptions {
  readonly era: Era;
  readonly transport: 'memory' | 'http';
  readonly timeoutMs: number;
}

/** Throws a `TestingError` (`OPTIONS_INVALID`) naming every problem; returns the options with defaults. */
export function validateConnectOptions(target: unknown, options: ConnectOptions): CheckedConnectOptions {
  const issues = new OptionIssues('connect');
  if (typeof options !== 'object' || options === null) {
    issues.expect('options', 'an object', options);
    issues.throwNow(optionsError);
  }
  const isUrl = typeof target === 'string' || target instanceof URL;
  if (isUrl) {
    if (!/^https?:\/\//.test(String(target)) || !URL.canParse(String(target))) {
      issues.add(`the target must be a PierServer or an http(s) URL (got ${describeValue(String(target))})`);
    }
  } else if (!isPierServer(target)) {
    issues.add(
      `the target must be a PierServer (from createServer) or an http(s) URL (got ${describeValue(target)})`,
    );
  }

  for (const key of Object.keys(options)) {
    if (!KNOWN.includes(key)) issues.add(`unknown option "${key}"; known options: ${KNOWN.join(', ')}`);
  }
  const era = options.era ?? '2026-07-28';
  if (!(ERAS as readonly string[]).includes(era) && era !== 'auto') {
    issues.add(`era must be ${ERAS.join(', ')} or auto (got ${describeValue(era)})`);
  }
  const transport = options.transport ?? (isUrl ? 'http' : 'memory');
  if (transport !== 'memory' && transport !== 'http') {
    issues.add(`transport must be memory or http (got ${describeValue(transport)})`);
  }
  if (isUrl && transport === 'memory') {
    issues.add('transport memory needs a PierServer: a URL can only be reached over http');
  }
  if (options.http !== undefined) {
    if (typeof options.http !== 'object' || options.http === null) {
      issues.add(`http must be an object of listen options (got ${describeValue(options.http)})`);
    } else if (transport !== 'http' || isUrl) {
      issues.add('http options apply only when connect starts a PierServer over http');
    } else if (isPierServer(target) && target.address !== undefined) {
      issues.add(`http options cannot apply: the server already listens on ${target.address.url}`);
    }
  }
  if (transport === 'http' && isPierServer(target) && target.address?.transport === 'stdio') {
    issues.add(
      'transport http: the server already listens on stdio, where a client in this process cannot reach it',
    );
  }
  for (const key of ['onElicit', 'onSample'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function') {
      issues.add(`${key} must be a function (got ${describeValue(options[key])})`);
    }
  }
  const { roots } = options;
  if (roots !== undefined && typeof roots !== 'function') {
    if (!Array.isArray(roots)) {
      issues.add(`roots must be an array of { uri, name? } or a function (got ${describeValue(roots)})`);
    } else {
      roots.forEach((root: unknown, index) => {
        const uri = (root as { uri?: unknown } | null)?.uri;
        if (typeof uri !== 'string' || !uri.startsWith('file://')) {
          issues.add(`roots[${index}].uri must be a file:// URI (got ${describeValue(uri)})`);
        }
      });
    }
  }
  const info = options.clientInfo;
  if (
    info !== undefined &&
    (typeof info !== 'object' ||
      info === null ||
      typeof info.name !== 'string' ||
      typeof info.version !== 'string')
  ) {
    issues.add(`clientInfo must be { name: string, version: string } (got ${describeValue(info)})`);
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    issues.add(`timeoutMs must be a whole number of milliseconds > 0 (got ${describeValue(timeoutMs)})`);
  }
  issues.throwIfAny(optionsError);
  return { era, transport, timeoutMs };
}

function isPierServer(value: unknown): value is PierServer {
  const server = value as Partial<PierServer> | null;
  return (
    typeof server === 'object' &&
    server !== null &&
    typeof server.engine === 'object' &&
    typeof server.listen === 'function' &&
    typeof server.notifyResourceUpdated === 'function'
  );
}
