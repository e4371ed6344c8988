// A client that did not declare elicitation: ctx.elicit rejects with MissingClientCapabilityError,
// which the client sees as an error (catch it in the handler to do without).
import { connect } from '@pier/testing';
import { newServer } from './confirm-server.js';

const { client, close } = await connect(newServer(), { era: '2025-11-25' });
const result = await client.callTool({ name: 'delete_note', arguments: { index: 0 } });
console.log(result.isError, result.content);
await close();
