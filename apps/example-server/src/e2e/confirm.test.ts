// Deleting a note asks the user first (ctx.elicit): the SDK v2 client on 2026-07-28 (answered through an
// input-required round) and pinned to 2025 (a real request on its session), and the SDK v1 client, each
// answering yes and no. No means nothing is deleted.
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationResult as ElicitResult } from '@pier/core';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, startHttpApp } from './test-app.js';
import { type AnyClient, CLIENT_KINDS, type ClientKind, structured, textOf } from './test-clients.js';

const TEST_TIMEOUT_MS = 30_000;

afterEach(async () => {
  await closeAll();
  await cleanUp();
});

type Answer = ElicitResult;

/** A client of `kind` whose user answers every question with `answer`; `asked` records the questions. */
async function clientAnswering(
  kind: ClientKind,
  url: string,
  answer: Answer,
  asked: string[],
): Promise<AnyClient> {
  const reply = (params: { message?: string }) => {
    asked.push(params.message ?? '');
    return answer;
  };
  if (kind === 'v1') {
    const client = new V1Client({ name: 'e2e-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => reply(request.params));
    await client.connect(new V1HttpTransport(new URL(url)));
    return client;
  }
  const connected = await connect(url, {
    era: kind === 'v2 auto' ? '2026-07-28' : '2025-11-25',
    onElicit: (params) => reply(params),
  });
  return connected.client;
}

describe('delete_note asks the user to confirm (SESSIONS=true, so 2025 clients can be asked)', () => {
  it.each(CLIENT_KINDS.flatMap((kind) => [[kind, 'yes'] as const, [kind, 'no'] as const]))(
    'the %s client answering %s',
    async (kind, says) => {
      const app = await startHttpApp({ env: { SESSIONS: 'true' } });
      const asked: string[] = [];
      const answer: Answer =
        says === 'yes' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
      const client = await clientAnswering(kind, app.url, answer, asked);
      const added = structured<{ note: { id: string } }>(
        await client.callTool({ name: 'add_note', arguments: { title: `Doomed (${kind})`, body: 'x' } }),
      );
      const id = added.note.id;
      const result = await client.callTool({ name: 'delete_note', arguments: { id } });
      expect(asked).toEqual([`Delete the note "Doomed (${kind})"? This cannot be undone.`]);
      const listed = structured<{ notes: { id: string }[] }>(
        await client.callTool({ name: 'list_notes', arguments: {} }),
      );
      if (says === 'yes') {
        expect(textOf(result)).toBe(`deleted note ${id}`);
        expect(listed.notes.map((note) => note.id)).not.toContain(id);
      } else {
        expect(textOf(result)).toBe(`kept note ${id}`);
        expect(listed.notes.map((note) => note.id)).toContain(id);
      }
      await client.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'an accepted form that does not tick the box keeps the note too',
    async () => {
      const app = await startHttpApp();
      const asked: string[] = [];
      const client = await clientAnswering(
        'v2 auto',
        app.url,
        { action: 'accept', content: { confirm: false } },
        asked,
      );
      const added = structured<{ note: { id: string } }>(
        await client.callTool({ name: 'add_note', arguments: { title: 'Kept', body: 'x' } }),
      );
      expect(textOf(await client.callTool({ name: 'delete_note', arguments: { id: added.note.id } }))).toBe(
        `kept note ${added.note.id}`,
      );
      expect(asked).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );
});
