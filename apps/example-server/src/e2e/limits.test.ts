// ADD_NOTE_LIMIT on one process of the built app: over HTTP with every official client (v2 in both eras,
// v1), and over stdio. Past the limit add_note answers a tool error naming the limit and when to retry, and
// the note is not written; /metrics counts the refusal. Negative control: unset, nothing is limited.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanUp, startHttpApp, tempDir } from './test-app.js';
import { CLIENT_KINDS, closeClients, connectHttp, connectStdio, structured, textOf } from './test-clients.js';

afterEach(closeClients);
afterAll(cleanUp);

const note = (i: number) => ({ name: 'add_note', arguments: { title: `n${i}`, body: 'x' } });
const refusedText =
  /^Rate limit "add-note" reached \(\d+ calls? per minute per principal\); retry in \d+ s\.$/;

async function noteCount(client: { callTool(p: { name: string }): Promise<unknown> }): Promise<number> {
  return structured<{ notes: unknown[] }>(await client.callTool({ name: 'list_notes' })).notes.length;
}

describe('ADD_NOTE_LIMIT over HTTP', () => {
  it('admits N add_note calls per principal per minute, whichever client; then a tool error, nothing written', async () => {
    const app = await startHttpApp({ env: { ADD_NOTE_LIMIT: '3', METRICS: 'true' } });
    const results: unknown[] = [];
    // Anonymous callers share one budget: the three clients spend it together.
    for (const kind of CLIENT_KINDS) {
      const { client } = await connectHttp(kind, app.url);
      results.push(await client.callTool(note(results.length)));
      results.push(await client.callTool(note(results.length)));
    }
    const refused = results.map((result) => (result as { isError?: boolean }).isError === true);
    expect(refused).toEqual([false, false, false, true, true, true]);
    for (const result of results.slice(3)) expect(textOf(result)).toMatch(refusedText);
    const { client } = await connectHttp('v2 auto', app.url);
    expect(await noteCount(client)).toBe(3);
    const metrics = await (await fetch(new URL('/metrics', app.url))).text();
    expect(metrics).toMatch(
      /^pier_limit_refusals_total\{pier_limit_reason="exceeded",pier_limit_rule="add-note"\} 3$/m,
    );
    const health = (await (await fetch(new URL('/health', app.url))).json()) as {
      checks: Record<string, unknown>;
    };
    expect(health.checks.limits).toMatchObject({ status: 'healthy', critical: false });
  });

  it('negative control: unset, add_note is not limited and /health has no limits check', async () => {
    const app = await startHttpApp();
    const { client } = await connectHttp('v2 auto', app.url);
    for (let i = 0; i < 6; i++)
      expect(((await client.callTool(note(i))) as { isError?: boolean }).isError).not.toBe(true);
    const health = (await (await fetch(new URL('/health', app.url))).json()) as {
      checks: Record<string, unknown>;
    };
    expect(health.checks.limits).toBeUndefined();
  });
});

describe('ADD_NOTE_LIMIT over stdio', () => {
  it('--add-note-limit 1: the second add_note is refused with a tool error', async () => {
    const { client } = await connectStdio('v2 auto', await tempDir(), ['--add-note-limit', '1']);
    expect(((await client.callTool(note(0))) as { isError?: boolean }).isError).not.toBe(true);
    const second = await client.callTool(note(1));
    expect((second as { isError?: boolean }).isError).toBe(true);
    expect(textOf(second)).toMatch(refusedText);
    expect(await noteCount(client)).toBe(1);
  });
});
