// The same server, a 2026-07-28 client and a 2025-11-25 client; each answers the question.
import { connect } from '@pier/testing';
import { newServer } from './confirm-server.js';

for (const era of ['2026-07-28', '2025-11-25'] as const) {
  const { client, protocolVersion, close } = await connect(newServer(), {
    era,
    onElicit: (request) => {
      console.log(`  ${era} client asked: ${request.message}`);
      return { action: 'accept', content: { confirm: true } };
    },
  });
  console.log(`${era}: agreed on ${protocolVersion}`);
  const result = await client.callTool({ name: 'delete_note', arguments: { index: 0 } });
  console.log('  result:', result.content);
  await close();
}
