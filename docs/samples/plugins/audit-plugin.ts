// A plugin is a name and a setup function. Through its context it adds tools and HTTP routes, follows
// the server's lifecycle and cleans up on close.
import type { PierPlugin } from '@pier/core';

export function auditPlugin(): PierPlugin {
  const calls: string[] = [];
  return {
    name: 'audit',
    setup(ctx) {
      ctx.addTool({
        name: 'audit_log',
        description: 'What this server was asked, most recent first',
        handler: () => calls.slice(-10).reverse().join('\n') || 'nothing yet',
      });
      ctx.addRoute({
        method: 'GET',
        path: '/audit',
        handler: () => Response.json({ calls: calls.length }),
      });
      ctx.observe({
        onRequest: (request) => {
          calls.push(request.method);
          return undefined;
        },
      });
      ctx.onStateChange((state, previous) => ctx.logger.info('state', { from: previous, to: state }));
      ctx.onClose(() => ctx.logger.info('audit closed', { calls: calls.length }));
    },
  };
}
