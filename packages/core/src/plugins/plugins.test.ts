// createServer's `plugins` option: plugins built at run time, set up after the declaration's own.
import { connect } from '@pier/testing';
import { describe, expect, it } from 'vitest';
import { MCPServer, Tool } from '../declaring/decorators.js';
import { defineServer, defineTool } from '../declaring/define.js';
import { createServer } from '../server/create-server.js';
import { quiet, REVISION, thrown } from '../test-helpers.js';
import type { PierPlugin } from './api.js';

/** A plugin that records its setup in `order` and may add a route. */
function recorder(name: string, order: string[], route?: string): PierPlugin {
  return {
    name,
    setup(ctx) {
      order.push(name);
      if (route) ctx.addRoute({ method: 'GET', path: route, handler: () => new Response() });
    },
  };
}

/** A plugin made from a value known only at run time, as a database handle would be. */
function notesPlugin(db: { readonly count: () => number }): PierPlugin {
  return {
    name: 'notes',
    setup(ctx) {
      ctx.addTool(defineTool({ name: 'count_notes', handler: () => `${db.count()} notes` }));
    },
  };
}

describe('createServer({ plugins })', () => {
  it('sets the options plugins up after the class plugins, and serves what they register', async () => {
    const order: string[] = [];
    @MCPServer({ name: 'weather', version: '1.0.0', plugins: [recorder('declared', order)] })
    class WeatherServer {
      @Tool()
      forecast() {
        return 'sunny';
      }
    }
    const db = { count: () => 3 };
    const server = createServer(WeatherServer, undefined, {
      ...quiet,
      plugins: [recorder('first-option', order), notesPlugin(db)],
    });
    expect(order).toEqual(['declared', 'first-option']);
    const client = (await connect(server, { era: REVISION.legacy })).client;
    try {
      expect((await client.callTool({ name: 'count_notes', arguments: {} })).content).toEqual([
        { type: 'text', text: '3 notes' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('works with a plain declaration too', () => {
    const order: string[] = [];
    const server = createServer(
      defineServer({ name: 'weather', version: '1', plugins: [recorder('declared', order, '/a')] }),
      { ...quiet, plugins: [recorder('option', order, '/b')] },
    );
    expect(order).toEqual(['declared', 'option']);
    expect(server.routes.map((route) => route.path)).toEqual(['/a', '/b']);
  });

  it('refuses a route an option plugin shares with a declared plugin, naming both', () => {
    const order: string[] = [];
    const error = thrown(() =>
      createServer(
        defineServer({ name: 'weather', version: '1', plugins: [recorder('health', order, '/health')] }),
        { ...quiet, plugins: [recorder('probe', order, '/health')] },
      ),
    );
    expect(error).toMatchObject({
      code: 'ROUTE_CONFLICT',
      message: 'plugin "probe" registers GET /health, but plugin "health" already registered GET /health',
    });
  });

  it('refuses a tool an option plugin shares with the class, naming both', () => {
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class NotesServer {
      @Tool({ name: 'count_notes' })
      count() {
        return '0';
      }
    }
    const error = thrown(() =>
      createServer(NotesServer, undefined, { ...quiet, plugins: [notesPlugin({ count: () => 1 })] }),
    );
    expect(error).toMatchObject({
      code: 'DUPLICATE_NAME',
      message: 'tool "count_notes" of plugin "notes" is already declared by class NotesServer',
    });
  });

  it('refuses a plugin name that the declaration already uses', () => {
    const order: string[] = [];
    @MCPServer({ name: 'weather', version: '1.0.0', plugins: [recorder('health', order)] })
    class WeatherServer {}
    const error = thrown(() =>
      createServer(WeatherServer, undefined, { ...quiet, plugins: [recorder('health', order)] }),
    );
    expect(error).toMatchObject({
      code: 'DUPLICATE_NAME',
      message: 'createServer: plugin "health" of the options is already declared by class WeatherServer',
    });
    expect(order).toEqual([]);
  });

  it('refuses two option plugins with one name', () => {
    const order: string[] = [];
    const error = thrown(() =>
      createServer(defineServer({ name: 'weather', version: '1' }), {
        ...quiet,
        plugins: [recorder('twin', order), recorder('twin', order)],
      }),
    );
    expect(error).toMatchObject({ code: 'DUPLICATE_NAME', message: expect.stringContaining('"twin"') });
  });

  it.each([
    ['not an array', recorder('x', []), '"plugins"'],
    ['a plugin without setup', [{ name: 'db' }], '"plugins[0].setup" must be a function'],
    ['a plugin without a name', [{ setup() {} }], '"plugins[0].name" must be a non-empty string'],
    ['something else', [42], '"plugins[0]"'],
  ])('rejects plugins: %s', (_, plugins, expected) => {
    const error = thrown(() =>
      createServer(defineServer({ name: 'weather', version: '1' }), { ...quiet, plugins } as never),
    );
    expect(error.code).toBe('PLUGIN_INVALID');
    expect(error.message).toContain('createServer options');
    expect(error.message).toContain(expected);
  });

  it('reports an option plugin whose setup throws, naming it', () => {
    const cause = new Error('no database');
    const plugin: PierPlugin = {
      name: 'db',
      setup: () => {
        throw cause;
      },
    };
    const error = thrown(() =>
      createServer(defineServer({ name: 'weather', version: '1' }), { ...quiet, plugins: [plugin] }),
    );
    expect(error).toMatchObject({
      code: 'PLUGIN_INVALID',
      message: 'plugin "db" failed in setup: no database',
      cause,
    });
  });
});
