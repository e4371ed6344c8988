// What a client sees when a handler throws: its own message, except for a failure of the system
// underneath (Node's errno and ERR_* errors, directly or as a cause), which names server paths: then
// "Internal error", in every place a thrown error reaches a client, while the log keeps the detail.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineServer } from '../declaring/define.js';
import { completable } from '../index.js';
import { createServer } from '../server/create-server.js';
import { ERAS, type Era, REVISION } from '../test-helpers.js';
import { clientMessage, isSystemFailure } from './client-errors.js';

/** A real filesystem error: its message names an absolute path of this machine. */
const MISSING = join('/nonexistent-pier-dir', 'secret', 'export.jsonl.partial');
const fsFailure = () => open(MISSING, 'r').then(() => 'opened');

afterEach(closeAll);

describe('clientMessage', () => {
  it('keeps a handler’s own message, hides a system failure (itself or as a cause)', async () => {
    const failure = await fsFailure().catch((error: unknown) => error);
    expect(String(failure)).toContain(MISSING);
    expect(isSystemFailure(failure)).toBe(true);
    expect(clientMessage(failure)).toBe('Internal error');
    expect(clientMessage(new Error(`export failed: ${(failure as Error).message}`, { cause: failure }))).toBe(
      'Internal error',
    );
    expect(clientMessage(Object.assign(new TypeError('bad'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBe(
      'Internal error',
    );
    expect(clientMessage(new Error('no note with id "x"'))).toBe('no note with id "x"');
    const loop: { cause?: unknown } & Error = new Error('loops');
    loop.cause = loop;
    expect(clientMessage(loop)).toBe('loops');
  });
});

describe.each(Object.keys(ERAS) as Era[])('over %s', (era) => {
  it('a tool, a read, a completion and a prompt failing on the filesystem answer "Internal error"', async () => {
    const lines: string[] = [];
    const server = createServer(
      defineServer({
        name: 'fs',
        version: '1.0.0',
        tools: [
          { name: 'export', handler: fsFailure },
          {
            name: 'refuse',
            handler: () => {
              throw new Error('nothing to export');
            },
          },
        ],
        resources: [
          {
            name: 'file',
            uriTemplate: 'vault://{name}',
            handler: fsFailure,
            complete: { name: fsFailure as never },
            list: fsFailure as never,
          },
        ],
        prompts: [
          { name: 'p', args: { a: completable(z.string(), fsFailure as never) }, handler: fsFailure },
        ],
      }),
      { handleSignals: false, logStream: { write: (line: string) => lines.push(line) > 0 } },
    );
    const { client } = await connect(server, { era: REVISION[era] });
    const failed = await client.callTool({ name: 'export', arguments: {} });
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Internal error' }] });
    // A handler's own words still reach the model.
    expect(await client.callTool({ name: 'refuse', arguments: {} })).toMatchObject({
      isError: true,
      content: [{ text: 'nothing to export' }],
    });
    for (const call of [
      () => client.readResource({ uri: 'vault://a' }),
      () => client.listResources(),
      () => client.getPrompt({ name: 'p', arguments: { a: 'x' } }),
      () =>
        client.complete({
          ref: { type: 'ref/resource', uri: 'vault://{name}' },
          argument: { name: 'name', value: '' },
        }),
    ]) {
      const error = await call().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toMatchObject({ code: -32603 });
      expect(String((error as Error).message)).not.toContain(MISSING);
    }
    // The log keeps the detail.
    expect(lines.join('')).toContain(MISSING);
  });
});
