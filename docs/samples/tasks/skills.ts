// Skills (the io.modelcontextprotocol/skills extension) from a folder: ./skills/<name>/SKILL.md …
import { createServer, defineServer } from '@pier/core';

const server = createServer(defineServer({ name: 'notes', version: '1.0.0' }), { skills: './skills' });
await server.listen({ transport: 'streamable-http', port: 3000 }); // loads the skills first

// Later, after the folder changed: rescans; clients hear resources/list_changed when the list changed.
process.on('SIGHUP', () => void server.reloadSkills());
