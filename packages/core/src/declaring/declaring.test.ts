// Every way a declaration can be wrong fails early, with a PierError naming where and which field.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PierPlugin } from '../plugins/api.js';
import { createServer } from '../server/create-server.js';
import { quiet, thrown } from '../test-helpers.js';
import { classDeclaration, MCPServer, Prompt, Resource, Tool } from './decorators.js';
import { defineResource, defineServer, defineTool } from './define.js';

describe('@MCPServer', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['not a string', 42],
  ])('rejects a %s name, naming the class and the field', (_, name) => {
    const error = thrown(() => {
      @MCPServer({ name, version: '1.0.0' } as never)
      class NamelessServer {}
      return NamelessServer;
    });
    expect(error.code).toBe('DECLARATION_INVALID');
    expect(error.message).toContain('class NamelessServer');
    expect(error.message).toContain('"name"');
  });

  it.each([undefined, '', 'v1', 'latest', '1.', '1..2', '1.2.3.4', '1.2.3-', '1.2.3+', '1.2.3 beta', 1])(
    'rejects the version %j, naming the class and the field',
    (version) => {
      const error = thrown(() => {
        @MCPServer({ name: 'weather', version } as never)
        class BadVersionServer {}
        return BadVersionServer;
      });
      expect(error.code).toBe('DECLARATION_INVALID');
      expect(error.message).toMatch(
        /^@MCPServer on class BadVersionServer: "version" must be dotted numbers/,
      );
    },
  );

  it.each([
    '1',
    '1.2',
    '1.2.3',
    '0.0.1',
    '1.2.3-beta.1',
    '1.2.3+build.5',
    '1.2.3-beta.1+build.5',
    '10.20.30-rc-1',
  ])('accepts the version %s', (version) => {
    @MCPServer({ name: 'weather', version })
    class GoodVersionServer {}
    expect(classDeclaration(GoodVersionServer)?.version).toBe(version);
  });

  it.each([
    ['title', { title: 1 }],
    ['description', { description: false }],
    ['instructions', { instructions: {} }],
  ])('rejects a %s that is not a string', (field, extra) => {
    const error = thrown(() => {
      @MCPServer({ name: 'weather', version: '1.0.0', ...extra } as never)
      class OddServer {}
      return OddServer;
    });
    expect(error.message).toContain(`"${field}" must be a string`);
  });

  it.each([
    ['not an array', { name: 'x', setup() {} }, 'plugins'],
    ['a plugin without setup', [{ name: 'x' }], 'plugins[0].setup'],
    ['a plugin without a name', [{ setup() {} }], 'plugins[0].name'],
    ['something else', [42], 'plugins[0]'],
  ])('rejects plugins: %s', (_, plugins, field) => {
    const error = thrown(() => {
      @MCPServer({ name: 'weather', version: '1.0.0', plugins } as never)
      class PluggedServer {}
      return PluggedServer;
    });
    expect(error.code).toBe('PLUGIN_INVALID');
    expect(error.message).toContain('class PluggedServer');
    expect(error.message).toContain(`"${field}"`);
  });

  it('rejects two plugins with one name', () => {
    const plugin = { name: 'twin', setup() {} };
    const error = thrown(() =>
      defineServer({ name: 'weather', version: '1', plugins: [plugin, { ...plugin }] }),
    );
    expect(error).toMatchObject({ code: 'DUPLICATE_NAME', message: expect.stringContaining('"twin"') });
  });
});

describe('@Tool, @Resource and @Prompt', () => {
  it.each(['bad name', '-dash', 'dot.', 'x'.repeat(129), 'slash/y', ''])(
    'rejects the tool name %j',
    (name) => {
      const error = thrown(() => {
        @MCPServer({ name: 'weather', version: '1.0.0' })
        class ToolServer {
          @Tool({ name })
          method() {}
        }
        return ToolServer;
      });
      expect(error.code).toBe('DECLARATION_INVALID');
      expect(error.message).toMatch(/^@Tool on ToolServer\.method: "name" must be 1–128 characters/);
    },
  );

  it('names a tool after its method by default', () => {
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class NamedServer {
      @Tool()
      get_forecast() {}
    }
    expect(classDeclaration(NamedServer)?.tools?.map((tool) => tool.name)).toEqual(['get_forecast']);
  });

  it.each([
    ['input', { input: { city: 'string' } }],
    ['input', { input: 'z.string()' }],
    ['output', { output: [z.string()] }],
    ['description', { description: 7 }],
    ['annotations', { annotations: 'readOnly' }],
  ])('rejects a bad %s', (field, options) => {
    const error = thrown(() => {
      @MCPServer({ name: 'weather', version: '1.0.0' })
      class SchemaServer {
        @Tool(options as never)
        lookup() {}
      }
      return SchemaServer;
    });
    expect(error.message).toContain('@Tool on SchemaServer.lookup');
    expect(error.message).toContain(`"${field}"`);
  });

  it('rejects, at createServer, a schema that does not describe an object', () => {
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class ScalarServer {
      @Tool({ input: z.string() as never })
      lookup() {}
    }
    const error = thrown(() => createServer(ScalarServer, undefined, quiet));
    expect(error.code).toBe('DECLARATION_INVALID');
    expect(error.message).toContain(
      'tool "lookup" of class ScalarServer: "input" must be a schema of an object',
    );
  });

  it.each([
    ['missing', undefined],
    ['not a URI', 'no scheme here'],
  ])('rejects a resource whose uri is %s', (_, uri) => {
    const error = thrown(() => {
      @MCPServer({ name: 'weather', version: '1.0.0' })
      class ResourceServer {
        @Resource({ uri } as never)
        settings() {
          return '';
        }
      }
      return ResourceServer;
    });
    expect(error.message).toMatch(/^@Resource on ResourceServer\.settings: "uri" must be an absolute URI/);
  });

  it('rejects prompt arguments that are not a schema', () => {
    const error = thrown(() => {
      @MCPServer({ name: 'weather', version: '1.0.0' })
      class PromptServer {
        @Prompt({ args: { city: String } } as never)
        plan() {
          return '';
        }
      }
      return PromptServer;
    });
    expect(error.message).toContain('@Prompt on PromptServer.plan: "args"');
  });

  it('only decorates instance methods', () => {
    const decorate = (body: () => unknown) => thrown(body).message;
    expect(
      decorate(() => {
        // biome-ignore lint/complexity/noStaticOnlyClass: a static method is what is being refused
        class StaticServer {
          @Tool()
          static lookup() {}
        }
        return StaticServer;
      }),
    ).toBe('@Tool can only decorate an instance method, not static method lookup');
    expect(
      decorate(() => {
        class FieldServer {
          // @ts-expect-error: the compiler already refuses a field
          @Tool() lookup = () => {};
        }
        return FieldServer;
      }),
    ).toBe('@Tool can only decorate an instance method, not a field');
    expect(
      decorate(() => {
        class GetterServer {
          // @ts-expect-error: the compiler already refuses a getter
          @Resource({ uri: 'a://b' })
          get settings() {
            return '';
          }
        }
        return GetterServer;
      }),
    ).toBe('@Resource can only decorate an instance method, not a getter');
  });

  it('requires a name on a symbol-keyed method', () => {
    const key = Symbol('lookup');
    const error = thrown(() => {
      @MCPServer({ name: 'weather', version: '1.0.0' })
      class SymbolServer {
        @Tool()
        [key]() {}
      }
      return SymbolServer;
    });
    expect(error.message).toBe(
      '@Tool on SymbolServer.Symbol(lookup): "name" is required on a symbol-keyed method',
    );
  });

  it('collects tools from base classes, letting subclasses override', () => {
    class Base {
      @Tool({ description: 'from base' })
      shared() {
        return 'base';
      }
      @Tool()
      inherited() {}
    }
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class Derived extends Base {
      @Tool({ description: 'from derived' })
      override shared() {
        return 'derived';
      }
    }
    const tools = classDeclaration(Derived)?.tools ?? [];
    expect(tools.map((tool) => [tool.name, tool.description])).toEqual([
      ['shared', 'from derived'],
      ['inherited', undefined],
    ]);
  });

  it('accepts the legacy (experimentalDecorators) calling convention', () => {
    class LegacyServer {
      lookup() {
        return 'found';
      }
    }
    const descriptor = Object.getOwnPropertyDescriptor(LegacyServer.prototype, 'lookup');
    Tool({ description: 'legacy' })(LegacyServer.prototype, 'lookup', descriptor as never);
    MCPServer({ name: 'legacy', version: '1.0.0' })(LegacyServer);
    expect(classDeclaration(LegacyServer)?.tools?.map((tool) => tool.description)).toEqual(['legacy']);
  });
});

describe('duplicates and conflicts', () => {
  it('rejects two tools with one name in a class', () => {
    const error = thrown(() => {
      @MCPServer({ name: 'weather', version: '1.0.0' })
      class TwinServer {
        @Tool({ name: 'lookup' })
        first() {}
        @Tool({ name: 'lookup' })
        second() {}
      }
      return TwinServer;
    });
    expect(error).toMatchObject({
      code: 'DUPLICATE_NAME',
      message: 'class TwinServer declares two tools named "lookup"',
    });
  });

  it('rejects two resources with one URI', () => {
    const error = thrown(() => {
      @MCPServer({ name: 'weather', version: '1.0.0' })
      class UriServer {
        @Resource({ uri: 'config://app' })
        first() {
          return '';
        }
        @Resource({ uri: 'config://app' })
        second() {
          return '';
        }
      }
      return UriServer;
    });
    expect(error).toMatchObject({ code: 'DUPLICATE_NAME', message: expect.stringContaining('config://app') });
  });

  it('rejects a plugin tool that clashes with the class, naming both', () => {
    const plugin: PierPlugin = {
      name: 'shadow',
      setup: (ctx) => ctx.addTool(defineTool({ name: 'forecast', handler: () => '' })),
    };
    @MCPServer({ name: 'weather', version: '1.0.0', plugins: [plugin] })
    class ClashServer {
      @Tool()
      forecast() {}
    }
    const error = thrown(() => createServer(ClashServer, undefined, quiet));
    expect(error).toMatchObject({
      code: 'DUPLICATE_NAME',
      message: 'tool "forecast" of plugin "shadow" is already declared by class ClashServer',
    });
  });

  it.each([
    ['GET', '/health', 'GET', '/health'],
    ['get', '/health', 'GET', '/health'],
    ['GET', '/health', 'HEAD', '/health'],
    ['POST', '/hook', 'post', '/hook'],
  ])('rejects %s %s and %s %s from two plugins, naming both', (m1, p1, m2, p2) => {
    const route = (name: string, method: string, path: string): PierPlugin => ({
      name,
      setup: (ctx) => ctx.addRoute({ method, path, handler: () => new Response() }),
    });
    const error = thrown(() =>
      createServer(
        defineServer({
          name: 'weather',
          version: '1',
          plugins: [route('first', m1, p1), route('second', m2, p2)],
        }),
        quiet,
      ),
    );
    expect(error.code).toBe('ROUTE_CONFLICT');
    expect(error.message).toMatch(/plugin "second" registers .* but plugin "first" already registered/);
  });

  it('accepts one path under different methods', () => {
    const plugin: PierPlugin = {
      name: 'both',
      setup(ctx) {
        ctx.addRoute({ method: 'GET', path: '/hook', handler: () => new Response() });
        ctx.addRoute({ method: 'POST', path: '/hook', handler: () => new Response() });
      },
    };
    const server = createServer(defineServer({ name: 'weather', version: '1', plugins: [plugin] }), quiet);
    expect(server.routes.map((route) => `${route.method} ${route.path}`)).toEqual([
      'GET /hook',
      'POST /hook',
    ]);
  });

  it.each([
    ['path', { method: 'GET', path: 'health' }],
    ['path', { method: 'GET', path: '/health?x=1' }],
    ['method', { method: 'GET /', path: '/health' }],
    ['handler', { method: 'GET', path: '/health', handler: 'ok' }],
    ['plain', { method: 'GET', path: '/health', plain: { status: 200 } }],
  ])('rejects a route with a bad %s', (field, route) => {
    const plugin: PierPlugin = {
      name: 'routes',
      setup: (ctx) => ctx.addRoute({ handler: () => new Response(), ...route } as never),
    };
    const error = thrown(() =>
      createServer(defineServer({ name: 'weather', version: '1', plugins: [plugin] }), quiet),
    );
    expect(error.code).toBe('DECLARATION_INVALID');
    expect(error.message).toContain(`route of plugin "routes": "${field}"`);
  });
});

describe('createServer', () => {
  it('refuses a class without @MCPServer', () => {
    class Plain {}
    expect(thrown(() => createServer(Plain)).message).toBe(
      'createServer: class Plain is not decorated with @MCPServer',
    );
  });

  it('constructs the class once, with the config', async () => {
    const made: unknown[] = [];
    @MCPServer({ name: 'weather', version: '1.0.0' })
    class CountingServer {
      constructor(config: { city: string }) {
        made.push(config);
      }
    }
    const server = createServer(CountingServer, { city: 'Oslo' }, quiet);
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    await server.engine.handle(list, { era: 'legacy' });
    await server.engine.handle(list, { era: 'legacy' });
    expect(made).toEqual([{ city: 'Oslo' }]);
  });

  it('reports a plugin whose setup throws, keeping the cause', () => {
    const cause = new Error('no database');
    const plugin: PierPlugin = {
      name: 'db',
      setup: () => {
        throw cause;
      },
    };
    const error = thrown(() =>
      createServer(defineServer({ name: 'weather', version: '1', plugins: [plugin] }), quiet),
    );
    expect(error).toMatchObject({
      code: 'PLUGIN_INVALID',
      message: 'plugin "db" failed in setup: no database',
      cause,
    });
  });

  it('refuses an asynchronous setup', () => {
    const plugin = { name: 'later', setup: async () => {} } as PierPlugin;
    const error = thrown(() =>
      createServer(defineServer({ name: 'weather', version: '1', plugins: [plugin] }), quiet),
    );
    expect(error).toMatchObject({ code: 'PLUGIN_INVALID', message: expect.stringContaining('synchronous') });
  });

  it.each([
    [{ logLevel: 'loud' }, 'logLevel'],
    [{ handleSignals: 'yes' }, 'handleSignals'],
    [{ closeHookTimeoutMs: 0 }, 'closeHookTimeoutMs'],
    [{ closeHookTimeoutMs: -5 }, 'closeHookTimeoutMs'],
    [{ closeHookTimeoutMs: '5000' }, 'closeHookTimeoutMs'],
    [{ closeHookTimeoutMs: Number.POSITIVE_INFINITY }, 'closeHookTimeoutMs'],
    [{ closeHookTimeoutMs: 2 ** 31 }, 'closeHookTimeoutMs'],
    [{ logStream: process.stdout.fd }, 'logStream'],
    [{ tasks: { ttlMs: 0 } }, 'tasks.ttlMs'],
    [{ tasks: { leaseMs: -1 } }, 'tasks.leaseMs'],
    [{ tasks: { leaseMs: 1.5 } }, 'tasks.leaseMs'],
    ['verbose', 'options'],
  ])('rejects the options %j', (options, field) => {
    const error = thrown(() =>
      createServer(defineServer({ name: 'weather', version: '1' }), options as never),
    );
    expect(error).toMatchObject({ code: 'OPTIONS_INVALID', message: expect.stringContaining(field) });
  });

  it('validates a plain declaration like the decorators do', () => {
    const error = thrown(() =>
      createServer(
        { name: 'weather', version: '1', tools: [{ name: 'x', handler: 'nope' }] } as never,
        quiet,
      ),
    );
    expect(error.message).toBe('createServer: tools[0]: "handler" must be a function (got "nope")');
  });

  it('requires subscribable to be a boolean', () => {
    const error = thrown(() =>
      defineResource({
        name: 'status',
        uri: 'app://status',
        subscribable: 'yes',
        handler: () => '',
      } as never),
    );
    expect(error).toMatchObject({
      code: 'DECLARATION_INVALID',
      message: 'defineResource: "subscribable" must be a boolean (got "yes")',
    });
  });

  it.each([
    ['not an array', 'notes:read'],
    ['a space inside', ['notes read']],
    ['a quote', ['a"b']],
    ['empty', ['']],
  ])('rejects scopes that are %s, on tools, resources and prompts alike', (_, scopes) => {
    const error = thrown(() => defineTool({ name: 'x', scopes, handler: () => '' } as never));
    expect(error).toMatchObject({ code: 'DECLARATION_INVALID' });
    expect(error.message).toMatch(/^defineTool: "scopes" must be an array of OAuth scopes/);
    expect(() =>
      createServer(
        { name: 'n', version: '1', prompts: [{ name: 'p', scopes, handler: () => '' }] } as never,
        quiet,
      ),
    ).toThrow(/prompts\[0\]: "scopes"/);
  });

  it('keeps scopes given to @Tool, @Resource and @Prompt (deduplicated)', () => {
    @MCPServer({ name: 'scoped', version: '1.0.0' })
    class Scoped {
      @Tool({ scopes: ['notes:write', 'notes:write'] })
      write() {}
      @Resource({ uri: 'notes://all', scopes: ['notes:read'] })
      all() {
        return '';
      }
      @Prompt({ scopes: ['notes:read'] })
      summary() {
        return '';
      }
    }
    const declaration = classDeclaration(Scoped);
    expect(declaration?.tools?.[0]?.scopes).toEqual(['notes:write']);
    expect(declaration?.resources?.[0]?.scopes).toEqual(['notes:read']);
    expect(declaration?.prompts?.[0]?.scopes).toEqual(['notes:read']);
  });
});
