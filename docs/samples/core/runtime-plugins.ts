// Plugins made from values known only at run time (a database handle, the loaded configuration) go in
// createServer's `plugins` option, so the class can stay at module level. They are set up after the
// plugins the class declares.
import { createServer, MCPServer, type PierPlugin, Tool } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';

interface Database {
  ping(): Promise<void>;
  count(): Promise<number>;
}

const auditPlugin = (): PierPlugin => ({
  name: 'audit',
  setup: (ctx) => {
    ctx.use('tools/call', async (request, next) => {
      ctx.logger.info('tool called', { tool: request.name });
      return next();
    });
  },
});

@MCPServer({ name: 'notes', version: '1.0.0', plugins: [auditPlugin()] })
class NotesServer {
  constructor(private readonly db: Database) {}

  @Tool({ description: 'How many notes there are' })
  async count() {
    return `${await this.db.count()} notes`;
  }
}

// In an application, opened from the configuration: await openDatabase(config.databaseUrl).
const db: Database = { ping: async () => {}, count: async () => 2 };
const dbCheck = {
  name: 'db',
  critical: true,
  check: async () => {
    await db.ping();
    return { status: 'healthy' as const };
  },
};

const server = createServer(NotesServer, db, {
  plugins: [healthPlugin({ checks: [dbCheck] })],
  handleSignals: false,
});
console.log(server.routes.map((route) => `${route.method} ${route.path}`));
await server.close();
