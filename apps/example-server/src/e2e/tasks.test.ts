// export_notes as a task (io.modelcontextprotocol/tasks): started by a 2026-07-28 call that declares the
// extension, polled with tasks/get, its result (the archive's path) fetched later; cancelled mid-way it
// leaves no file. And the server's one skill, served by the skills extension.
import { readdir, readFile } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, startHttpApp, tempDir } from './test-app.js';
import { addNotes, rpc } from './test-tasks.js';

const TEST_TIMEOUT_MS = 30_000;
afterEach(cleanUp);

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('export_notes, a long-running tool', () => {
  it(
    'runs as a task: the call answers with a task at once, tasks/get reports it, the result names the archive',
    async () => {
      const dataDir = await tempDir();
      const app = await startHttpApp({ dataDir });
      await addNotes(app.url, 5);
      const created = await rpc(
        app.url,
        'tools/call',
        { name: 'export_notes', arguments: {} },
        'export_notes',
      );
      expect(created.result).toMatchObject({ resultType: 'task', status: expect.any(String) });
      const taskId = created.result?.taskId as string;
      const done = await until(async () => {
        const got = await rpc(app.url, 'tasks/get', { taskId }, taskId);
        return got.result?.status === 'completed' ? got.result : undefined;
      }, 'the export to complete');
      const { file, notes } = (done.result as { structuredContent: { file: string; notes: number } })
        .structuredContent;
      expect(notes).toBe(5);
      const lines = (await readFile(file, 'utf8')).trim().split('\n');
      expect(lines.map((line) => (JSON.parse(line) as { title: string }).title)).toEqual([
        'Note 0',
        'Note 1',
        'Note 2',
        'Note 3',
        'Note 4',
      ]);
      expect((await readdir(dataDir)).filter((name) => name.endsWith('.partial'))).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'cancelled mid-way, it ends cancelled and leaves no archive behind',
    async () => {
      const dataDir = await tempDir();
      const app = await startHttpApp({ dataDir });
      await addNotes(app.url, 100);
      const created = await rpc(
        app.url,
        'tools/call',
        { name: 'export_notes', arguments: {} },
        'export_notes',
      );
      const taskId = created.result?.taskId as string;
      expect(taskId).toBeTruthy();
      expect((await rpc(app.url, 'tasks/cancel', { taskId }, taskId)).result).toMatchObject({
        resultType: 'complete',
      });
      const got = await rpc(app.url, 'tasks/get', { taskId }, taskId);
      expect(got.result?.status).toBe('cancelled');
      // The handler stops at its next note and removes what it wrote.
      await until(
        async () => ((await readdir(dataDir)).some((name) => name.startsWith('export-')) ? undefined : true),
        'the partial archive to be removed',
      );
      expect((await readdir(dataDir)).filter((name) => name.startsWith('export-'))).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'is an ordinary call for a client without the extension',
    async () => {
      const app = await startHttpApp();
      const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(new URL(app.url)));
      const result = (await client.callTool({ name: 'export_notes', arguments: {} })) as {
        structuredContent?: { notes: number };
      };
      expect(result.structuredContent?.notes).toBe(0);
      await client.close();
    },
    TEST_TIMEOUT_MS,
  );
});

describe('the notes skill', () => {
  it(
    'is listed by skills/list and readable as a resource',
    async () => {
      const app = await startHttpApp();
      const listed = await rpc(app.url, 'skills/list', {});
      const skills = (listed.result?.skills ?? []) as { uri: string; frontmatter: { name: string } }[];
      expect(skills.map((skill) => skill.frontmatter.name)).toEqual(['notes']);
      const uri = skills[0]?.uri ?? '';
      const read = await rpc(app.url, 'resources/read', { uri }, uri);
      expect(JSON.stringify(read), uri).toContain('export_notes');
    },
    TEST_TIMEOUT_MS,
  );
});
