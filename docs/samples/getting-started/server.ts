// src/server.ts of a project made by `npm create pier@latest my-server -- --yes`.
import { MCPServer, Prompt, Resource, Tool } from '@pier/core';
import { z } from 'zod';

/** What the server needs to run; main.ts reads it from the command line and the environment. */
export interface Settings {
  /** A secret: keep it out of logs and answers. Use it to call your upstream API. */
  readonly apiKey: string;
}

@MCPServer({ name: 'my-server', version: '0.1.0', instructions: 'Greets people and explains topics.' })
export class AppServer {
  constructor(private readonly settings: Settings) {}

  @Tool({
    description: 'Greets someone by name',
    input: { name: z.string().min(1).describe('Who to greet') },
  })
  async greet({ name }: { name: string }) {
    return `Hello, ${name}!`;
  }

  @Resource({
    uri: 'about://server',
    name: 'about',
    description: 'What this server is',
    mimeType: 'text/plain',
  })
  about() {
    return `my-server 0.1.0; API key ${this.settings.apiKey === '' ? 'missing' : 'configured'}`;
  }

  @Prompt({
    description: 'Ask for a short explanation',
    args: { topic: z.string().describe('What to explain') },
  })
  explain({ topic }: { topic: string }) {
    return `Explain ${topic} in one short paragraph.`;
  }
}
