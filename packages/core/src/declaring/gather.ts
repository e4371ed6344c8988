// Everything a server serves, collected from its class (or plain declaration) and its plugins, checked for
// clashes and prepared once (schemas converted, templates parsed). The engine's catalog is built from it.
import { type ServerCapabilities, type ToolAnnotations, UriTemplate } from '@modelcontextprotocol/server';
import { type MiddlewareEntry, middlewareEntry } from '../engine/middleware.js';
import { describeValue, fail, messageOf, PierError } from '../errors.js';
import type { HttpAuthenticator, HttpRoute, McpObserver, MethodHandler } from '../plugins/api.js';
import type { PromptDeclaration, ResourceDeclaration, ToolDeclaration } from './model.js';
import { type PreparedSchema, prepareObjectSchema } from './schema.js';

/** A tool, ready to register: its SDK config is built once and shared by every SDK server. */
export interface PreparedTool {
  readonly declaration: ToolDeclaration;
  readonly config: {
    readonly title?: string;
    readonly description?: string;
    readonly inputSchema?: PreparedSchema;
    readonly outputSchema?: PreparedSchema;
    readonly annotations?: ToolAnnotations;
  };
}

/** A resource, ready to register. */
export interface PreparedResource {
  readonly declaration: ResourceDeclaration;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly subscribable: boolean;
}

/** A prompt, ready to register. */
export interface PreparedPrompt {
  readonly declaration: PromptDeclaration;
  readonly argsSchema: PreparedSchema | undefined;
}

/** Collects registrations and rejects clashes, with a message naming both owners. */
export class Declarations {
  readonly tools: PreparedTool[] = [];
  readonly resources: PreparedResource[] = [];
  readonly prompts: PreparedPrompt[] = [];
  /** Capabilities plugins add (an extension they serve). */
  readonly capabilities: ServerCapabilities[] = [];
  readonly observers: McpObserver[] = [];
  readonly middleware: MiddlewareEntry[] = [];
  /** Methods plugins serve, by name. */
  readonly methods = new Map<
    string,
    { readonly handler: MethodHandler; readonly eras: 'both' | 'modern' | 'legacy'; readonly source: string }
  >();
  readonly #toolNames = new Map<string, string>();
  readonly #resourceNames = new Map<string, string>();
  readonly #resourceUris = new Map<string, string>();
  readonly #promptNames = new Map<string, string>();
  readonly #routes = new Map<string, { readonly route: HttpRoute; readonly source: string }>();
  #authenticator: { readonly authenticator: HttpAuthenticator; readonly source: string } | undefined;

  /** Plugin routes in registration order. */
  get routes(): readonly HttpRoute[] {
    return Object.freeze([...this.#routes.values()].map(({ route }) => route));
  }

  get authenticator(): HttpAuthenticator | undefined {
    return this.#authenticator?.authenticator;
  }

  /** Whether any resource can be subscribed to. */
  get subscribable(): boolean {
    return this.resources.some((resource) => resource.subscribable);
  }

  addTool(tool: ToolDeclaration, source: string): void {
    claim(this.#toolNames, 'tool', tool.name, source);
    const where = `tool "${tool.name}" of ${source}`;
    const input = tool.input && prepareObjectSchema(tool.input, where, 'input');
    const output = tool.output && prepareObjectSchema(tool.output, where, 'output');
    this.tools.push({
      declaration: tool,
      config: {
        ...(tool.title !== undefined && { title: tool.title }),
        ...(tool.description !== undefined && { description: tool.description }),
        ...(input && { inputSchema: input }),
        ...(output && { outputSchema: output }),
        ...(tool.annotations !== undefined && { annotations: tool.annotations }),
      },
    });
  }

  addResource(resource: ResourceDeclaration, source: string): void {
    claim(this.#resourceNames, 'resource', resource.name, source);
    const metadata = {
      ...(resource.title !== undefined && { title: resource.title }),
      ...(resource.description !== undefined && { description: resource.description }),
      ...(resource.mimeType !== undefined && { mimeType: resource.mimeType }),
      ...(resource.annotations !== undefined && { annotations: resource.annotations }),
    };
    const subscribable = resource.subscribable === true;
    if (resource.uriTemplate === undefined) {
      claim(this.#resourceUris, 'resource URI', resource.uri, source);
      this.resources.push({ declaration: resource, metadata, subscribable });
      return;
    }
    claim(this.#resourceUris, 'resource URI template', resource.uriTemplate, source);
    try {
      new UriTemplate(resource.uriTemplate);
    } catch (error) {
      fail(
        `resource "${resource.name}" of ${source}`,
        'uriTemplate',
        `a valid URI template (${messageOf(error)})`,
        resource.uriTemplate,
      );
    }
    this.resources.push({ declaration: resource, metadata, subscribable });
  }

  addPrompt(prompt: PromptDeclaration, source: string): void {
    claim(this.#promptNames, 'prompt', prompt.name, source);
    const where = `prompt "${prompt.name}" of ${source}`;
    const argsSchema = prompt.args && prepareObjectSchema(prompt.args, where, 'args');
    this.prompts.push({ declaration: prompt, argsSchema });
  }

  addRoute(route: unknown, source: string): void {
    const where = `route of ${source}`;
    if (typeof route !== 'object' || route === null)
      fail(where, 'route', 'an object { method, path, handler }', route);
    const { method, path, handler, plain } = route as Partial<HttpRoute>;
    if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method))
      fail(where, 'method', 'an HTTP method such as GET', method);
    if (typeof path !== 'string' || !/^\/[^\s?#]*$/.test(path)) {
      fail(where, 'path', 'an exact path starting with / (no query string)', path);
    }
    if (typeof handler !== 'function') fail(where, 'handler', 'a function', handler);
    if (plain !== undefined && typeof plain !== 'function') fail(where, 'plain', 'a function', plain);
    const normalized: HttpRoute = Object.freeze({
      method: method.toUpperCase(),
      path,
      handler,
      ...(plain !== undefined && { plain }),
    });
    // A GET route also answers HEAD, so GET and HEAD on one path clash too.
    const aliases =
      normalized.method === 'GET' || normalized.method === 'HEAD' ? ['GET', 'HEAD'] : [normalized.method];
    for (const alias of aliases) {
      const taken = this.#routes.get(`${alias} ${path}`);
      if (taken) {
        throw new PierError(
          'ROUTE_CONFLICT',
          `${source} registers ${normalized.method} ${path}, but ${taken.source} already registered ${taken.route.method} ${path}`,
        );
      }
    }
    this.#routes.set(`${normalized.method} ${path}`, { route: normalized, source });
  }

  addCapabilities(capabilities: unknown, source: string): void {
    if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
      fail(`${source}: addCapabilities`, 'capabilities', 'an object', capabilities, 'PLUGIN_INVALID');
    }
    this.capabilities.push(Object.freeze({ ...(capabilities as ServerCapabilities) }));
  }

  addMethod(method: unknown, handler: unknown, options: unknown, source: string): void {
    const where = `${source}: addMethod`;
    if (typeof method !== 'string' || !/^[A-Za-z0-9_.\-/]+$/.test(method)) {
      fail(where, 'method', 'a method name such as io.example/things/list', method, 'PLUGIN_INVALID');
    }
    if (typeof handler !== 'function') fail(where, 'handler', 'a function', handler, 'PLUGIN_INVALID');
    const eras = (options as { eras?: unknown } | undefined)?.eras ?? 'both';
    if (eras !== 'both' && eras !== 'modern' && eras !== 'legacy') {
      fail(where, 'eras', "'both', 'modern' or 'legacy'", eras, 'PLUGIN_INVALID');
    }
    const taken = this.methods.get(method);
    if (taken !== undefined) {
      throw new PierError('PLUGIN_INVALID', `${source} serves ${method}, but ${taken.source} already does`);
    }
    this.methods.set(method, { handler: handler as MethodHandler, eras, source });
  }

  addMiddleware(match: unknown, middleware: unknown, source: string): void {
    try {
      this.middleware.push(middlewareEntry(match, middleware, source, `${source}: use`));
    } catch (error) {
      throw new PierError('PLUGIN_INVALID', messageOf(error));
    }
  }

  addObserver(observer: unknown, source: string): void {
    const where = `${source}: observe`;
    if (typeof observer !== 'object' || observer === null) {
      fail(where, 'observer', 'an object { onRequest?, onNotification?, … }', observer, 'PLUGIN_INVALID');
    }
    const { onRequest, onNotification, onSession, onClientRequest, onStream, onTaskStatus } =
      observer as Partial<McpObserver>;
    for (const [field, value] of [
      ['onRequest', onRequest],
      ['onNotification', onNotification],
      ['onSession', onSession],
      ['onClientRequest', onClientRequest],
      ['onStream', onStream],
      ['onTaskStatus', onTaskStatus],
    ] as const) {
      if (value !== undefined && typeof value !== 'function')
        fail(where, field, 'a function', value, 'PLUGIN_INVALID');
    }
    this.observers.push(observer as McpObserver);
  }

  setAuthenticator(authenticator: unknown, source: string): void {
    const where = `${source}: setAuthenticator`;
    if (typeof (authenticator as Partial<HttpAuthenticator> | null)?.authenticate !== 'function') {
      fail(
        where,
        'authenticator',
        'an object with an authenticate(req) method',
        authenticator,
        'PLUGIN_INVALID',
      );
    }
    if (this.#authenticator !== undefined) {
      throw new PierError(
        'PLUGIN_INVALID',
        `${source} sets an authenticator, but ${this.#authenticator.source} already set one (a server has one)`,
      );
    }
    this.#authenticator = { authenticator: authenticator as HttpAuthenticator, source };
  }
}

function claim(names: Map<string, string>, kind: string, name: string, source: string): void {
  const owner = names.get(name);
  if (owner !== undefined) {
    throw new PierError(
      'DUPLICATE_NAME',
      owner === source
        ? `${source} declares two ${kind}s named ${describeValue(name)}`
        : `${kind} ${describeValue(name)} of ${source} is already declared by ${owner}`,
    );
  }
  names.set(name, source);
}
