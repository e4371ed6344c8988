// The server as a plain declaration: its tools, resources and prompts (no decorators).
import { definePrompt, defineResource, defineServer, defineTool, type ServerDeclaration } from '@pier/core';
import { z } from 'zod';

/** What the server needs to run; main.ts reads it from the command line and the environment. */
export interface Settings {
  /** A secret: keep it out of logs and answers. Use it to call your upstream API. */
  readonly apiKey: string;
}

export function appServer(settings: Settings): ServerDeclaration {
  return defineServer({
    name: '__NAME__',
    version: '0.1.0',
    instructions: 'Greets people and explains topics.',
    tools: [
      defineTool({
        name: 'greet',
        description: 'Greets someone by name',
        input: { name: z.string().min(1).describe('Who to greet') },
        handler: async ({ name }) => `Hello, ${name}!`,
      }),
    ],
    resources: [
      defineResource({
        name: 'about',
        uri: 'about://server',
        description: 'What this server is',
        mimeType: 'text/plain',
        handler: () => `__NAME__ 0.1.0; API key ${settings.apiKey === '' ? 'missing' : 'configured'}`,
      }),
    ],
    prompts: [
      definePrompt({
        name: 'explain',
        description: 'Ask for a short explanation',
        args: { topic: z.string().describe('What to explain') },
        handler: ({ topic }) => `Explain ${topic} in one short paragraph.`,
      }),
    ],
  });
}
