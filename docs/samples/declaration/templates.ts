// Resource templates: one method answers every URI the template matches; `complete` suggests values,
// `list` puts the template's concrete resources in resources/list, and a prompt argument wrapped in
// `completable` completes the same way.
import { completable, createServer, MCPServer, Prompt, Resource, type ResourceContext } from '@pier/core';
import { connect } from '@pier/testing';
import { z } from 'zod';

const NOTES = new Map([
  ['a1', 'Buy milk'],
  ['b2', 'Call Ada'],
]);
const idsStartingWith = (typed: string) => [...NOTES.keys()].filter((id) => id.startsWith(typed));

@MCPServer({ name: 'notes', version: '1.0.0' })
class NotesServer {
  @Resource({
    uriTemplate: 'notes://{id}',
    mimeType: 'text/plain',
    complete: { id: idsStartingWith },
    // Runs on every resources/list; `this` is the server's instance.
    list(this: NotesServer) {
      return [...NOTES].map(([id, title]) => ({ uri: `notes://${id}`, name: title }));
    },
  })
  note(_uri: URL, ctx: ResourceContext) {
    return NOTES.get(String(ctx.variables.id)) ?? '(no such note)';
  }

  @Prompt({ args: { id: completable(z.string(), idsStartingWith) } })
  review({ id }: { id: string }) {
    return `Review the note ${id}: ${NOTES.get(id)}`;
  }
}

const { client, close } = await connect(createServer(NotesServer, undefined, { handleSignals: false }));
console.log((await client.listResourceTemplates()).resourceTemplates);
console.log((await client.listResources()).resources);
console.log((await client.readResource({ uri: 'notes://b2' })).contents);
const completeId = (ref: { type: 'ref/resource'; uri: string } | { type: 'ref/prompt'; name: string }) =>
  client.complete({ ref, argument: { name: 'id', value: 'a' } });
console.log((await completeId({ type: 'ref/resource', uri: 'notes://{id}' })).completion.values);
console.log((await completeId({ type: 'ref/prompt', name: 'review' })).completion.values);
await close();
