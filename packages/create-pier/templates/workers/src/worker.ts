// The Worker: the MCP server as a fetch handler, made on the first request from the Worker's bindings
// (no top-level await; an isolate serves many requests). Settings are bindings: API_KEY is a secret
// (`wrangler secret put API_KEY`; `.dev.vars` for `wrangler dev`), never a [vars] entry.
import { createHandler } from './app.js';

/** The Worker's bindings (wrangler.toml and its secrets). */
export interface Env {
  readonly API_KEY?: string;
}

let handler: ReturnType<typeof createHandler> | undefined;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (env.API_KEY === undefined || env.API_KEY === '') {
      return Response.json(
        { error: 'the API_KEY secret is not set: wrangler secret put API_KEY' },
        { status: 500 },
      );
    }
    handler ??= createHandler({ apiKey: env.API_KEY });
    return handler.fetch(request);
  },
};
