// Everything a server serves, collected from its class (or plain declaration) and its plugins,
// checked for clashes, and prepared once so that building an SDK server per request stays cheap.
import {
  McpServer,
  ResourceTemplate,
  type ServerContext,
  type ToolAnnotations,
  UriTemplate,
  type Variables,
} from '@modelcontextprotocol/server';
import { requestContext, resourceContext, toolContext } from './context.js';
import type { HttpRoute, McpServerOptions, ServerInfo } from './contract.js';
import type {
  ListedResource,
  ListedResources,
  PromptDeclaration,
  ResourceDeclaration,
  ServerDeclaration,
  ToolDeclaration,
} from './declaration.js';
import { messageOf, PierError } from './errors.js';
import type { Logger } from './logger.js';
import { toolErrorResult, toPromptResult, toResourceResult, toToolResult } from './results.js';
import { type PreparedSchema, prepareObjectSchema } from './schema.js';
import { ResourceUpdates, type UriKind } from './subscriptions.js';
import { describe, fail } from './validate.js';

type Register = (server: McpServer) => void;

const NO_VARIABLES: Variables = Object.freeze({});
type Callback = (...args: unknown[]) => Promise<never>;

/** Throws `DUPLICATE_NAME` when a declaration repeats a tool, resource or prompt name (or a resource URI). */
export function assertUniqueNames(declaration: ServerDeclaration, source: string): void {
  const check = (kind: string, names: readonly string[]) => {
    const seen = new Set<string>();
    for (const name of names) {
      if (seen.has(name))
        throw new PierError('DUPLICATE_NAME', `${source} declares two ${kind}s named "${name}"`);
      seen.add(name);
    }
  };
  check(
    'tool',
    (declaration.tools ?? []).map((t) => t.name),
  );
  check(
    'resource',
    (declaration.resources ?? []).map((r) => r.name),
  );
  check(
    'resource URI',
    (declaration.resources ?? []).map((r) => r.uri ?? r.uriTemplate ?? ''),
  );
  check(
    'prompt',
    (declaration.prompts ?? []).map((p) => p.name),
  );
}

/** Collects registrations, rejects clashes, and builds SDK servers from them. */
export class Registry {
  readonly #tools = new Map<string, string>();
  readonly #resources = new Map<string, string>();
  readonly #resourceUris = new Map<string, string>();
  readonly #prompts = new Map<string, string>();
  readonly #routes = new Map<string, { readonly route: HttpRoute; readonly source: string }>();
  readonly #registrations: Register[] = [];
  /** Fixed resource URIs, and whether each is subscribable. */
  readonly #fixedUris = new Map<string, boolean>();
  readonly #templates: { readonly template: ResourceTemplate; readonly subscribable: boolean }[] = [];
  #subscribable = false;
  /** Subscriptions of every connection, and the updates sent to them. */
  readonly updates: ResourceUpdates;

  constructor(
    private readonly info: ServerInfo & { readonly title?: string; readonly description?: string },
    private readonly instructions: string | undefined,
    private readonly logger: Logger,
  ) {
    this.updates = new ResourceUpdates(logger);
  }

  /** Plugin routes in registration order. */
  get routes(): readonly HttpRoute[] {
    return Object.freeze([...this.#routes.values()].map(({ route }) => route));
  }

  addTool(tool: ToolDeclaration, source: string): void {
    claim(this.#tools, 'tool', tool.name, source);
    const where = `tool "${tool.name}" of ${source}`;
    const input = tool.input && prepareObjectSchema(tool.input, where, 'input');
    const output = tool.output && prepareObjectSchema(tool.output, where, 'output');
    const config: {
      title?: string;
      description?: string;
      inputSchema?: PreparedSchema;
      outputSchema?: PreparedSchema;
      annotations?: ToolAnnotations;
    } = {
      ...(tool.title !== undefined && { title: tool.title }),
      ...(tool.description !== undefined && { description: tool.description }),
      ...(input && { inputSchema: input }),
      ...(output && { outputSchema: output }),
      ...(tool.annotations !== undefined && { annotations: tool.annotations }),
    };
    const logger = this.logger.child(`tool:${tool.name}`);
    const handler = tool.handler as (args: unknown, ctx: unknown) => unknown;
    const updates = this.updates;
    // Without an input schema the SDK calls back with the context only; Pier always passes (args, ctx).
    const callback = async (...received: unknown[]) => {
      const [args, mcp] = input ? received : [{}, received[0]];
      try {
        return toToolResult(await handler(args, toolContext(mcp as ServerContext, logger, updates)));
      } catch (error) {
        logger.warn('tool failed', { error: messageOf(error) });
        return toolErrorResult(error);
      }
    };
    this.#registrations.push((server) => server.registerTool(tool.name, config, callback as Callback));
  }

  addResource(resource: ResourceDeclaration, source: string): void {
    claim(this.#resources, 'resource', resource.name, source);
    const metadata = {
      ...(resource.title !== undefined && { title: resource.title }),
      ...(resource.description !== undefined && { description: resource.description }),
      ...(resource.mimeType !== undefined && { mimeType: resource.mimeType }),
      ...(resource.annotations !== undefined && { annotations: resource.annotations }),
    };
    const logger = this.logger.child(`resource:${resource.name}`);
    const updates = this.updates;
    const subscribable = resource.subscribable === true;
    this.#subscribable ||= subscribable;
    const read = async (uri: URL, variables: Variables, mcp: ServerContext) => {
      try {
        const value = await resource.handler(uri, resourceContext(mcp, logger, updates, variables));
        return toResourceResult(value, uri.href, resource.mimeType);
      } catch (error) {
        logger.warn('resource read failed', { error: messageOf(error) });
        throw error;
      }
    };
    if (resource.uriTemplate === undefined) {
      claim(this.#resourceUris, 'resource URI', resource.uri, source);
      this.#fixedUris.set(resource.uri, subscribable);
      const readFixed = (uri: URL, mcp: ServerContext) => read(uri, NO_VARIABLES, mcp);
      this.#registrations.push((server) =>
        server.registerResource(resource.name, resource.uri, metadata, readFixed),
      );
      return;
    }
    claim(this.#resourceUris, 'resource URI template', resource.uriTemplate, source);
    let template: ResourceTemplate;
    try {
      // Immutable once built, so one serves every SDK server.
      template = new ResourceTemplate(resource.uriTemplate, {
        list: resource.list === undefined ? undefined : this.#lister(resource, logger),
        ...(resource.complete !== undefined && { complete: { ...resource.complete } }),
      });
    } catch (error) {
      fail(
        `resource "${resource.name}" of ${source}`,
        'uriTemplate',
        `a valid URI template (${messageOf(error)})`,
        resource.uriTemplate,
      );
    }
    this.#templates.push({ template, subscribable });
    this.#registrations.push((server) => server.registerResource(resource.name, template, metadata, read));
  }

  /** `resources/list`'s callback for a template's `list`: URIs it does not match are left out, and logged. */
  #lister(resource: ResourceDeclaration & { readonly uriTemplate: string }, logger: Logger) {
    const list = resource.list as NonNullable<typeof resource.list>;
    const updates = this.updates;
    const matcher = new UriTemplate(resource.uriTemplate);
    return async (mcp: ServerContext) => {
      let listed: ListedResources;
      try {
        listed = await list(requestContext(mcp, logger, updates));
      } catch (error) {
        logger.warn('resource list failed', { error: messageOf(error) });
        throw error;
      }
      if (!Array.isArray(listed)) {
        logger.warn('resource list ignored: list() must return an array', { got: describe(listed) });
        return { resources: [] };
      }
      const resources = [];
      for (const entry of listed as readonly unknown[]) {
        const item = typeof entry === 'string' ? { uri: entry } : entry;
        const uri = (item as { uri?: unknown } | null)?.uri;
        if (typeof uri !== 'string' || matcher.match(uri) === null) {
          logger.warn('listed resource left out: not a URI of the template', {
            uriTemplate: resource.uriTemplate,
            got: describe(typeof entry === 'string' ? entry : uri),
          });
          continue;
        }
        const { name, title, description, mimeType } = item as Exclude<ListedResource, string>;
        resources.push({
          uri,
          name: typeof name === 'string' && name !== '' ? name : uri,
          ...(typeof title === 'string' && { title }),
          ...(typeof description === 'string' && { description }),
          ...((mimeType ?? resource.mimeType) !== undefined && { mimeType: mimeType ?? resource.mimeType }),
        });
      }
      return { resources };
    };
  }

  addPrompt(prompt: PromptDeclaration, source: string): void {
    claim(this.#prompts, 'prompt', prompt.name, source);
    const where = `prompt "${prompt.name}" of ${source}`;
    const args = prompt.args && prepareObjectSchema(prompt.args, where, 'args');
    const config = {
      ...(prompt.title !== undefined && { title: prompt.title }),
      ...(prompt.description !== undefined && { description: prompt.description }),
      ...(args && { argsSchema: args }),
    };
    const logger = this.logger.child(`prompt:${prompt.name}`);
    const handler = prompt.handler as (args: unknown, ctx: unknown) => unknown;
    const updates = this.updates;
    const callback = async (...received: unknown[]) => {
      const [values, mcp] = args ? received : [{}, received[0]];
      try {
        return toPromptResult(
          await handler(values, requestContext(mcp as ServerContext, logger, updates)),
          prompt.description,
        );
      } catch (error) {
        logger.warn('prompt failed', { error: messageOf(error) });
        throw error;
      }
    };
    this.#registrations.push((server) => server.registerPrompt(prompt.name, config, callback as Callback));
  }

  addRoute(route: unknown, source: string): void {
    const where = `route of ${source}`;
    if (typeof route !== 'object' || route === null)
      fail(where, 'route', 'an object { method, path, handler }', route);
    const { method, path, handler } = route as Partial<HttpRoute>;
    if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method))
      fail(where, 'method', 'an HTTP method such as GET', method);
    if (typeof path !== 'string' || !/^\/[^\s?#]*$/.test(path)) {
      fail(where, 'path', 'an exact path starting with / (no query string)', path);
    }
    if (typeof handler !== 'function') fail(where, 'handler', 'a function', handler);
    const normalized: HttpRoute = Object.freeze({ method: method.toUpperCase(), path, handler });
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

  /** A fresh SDK server with everything registered. */
  createMcpServer(options: McpServerOptions = {}): McpServer {
    const subscribe = this.#subscribable && options.subscriptions !== false;
    const server = new McpServer(
      {
        name: this.info.name,
        version: this.info.version,
        ...(this.info.title !== undefined && { title: this.info.title }),
        ...(this.info.description !== undefined && { description: this.info.description }),
      },
      {
        capabilities: {
          logging: {},
          ...(this.#tools.size > 0 && { tools: { listChanged: false } }),
          ...(this.#resources.size > 0 && {
            resources: { listChanged: false, ...(subscribe && { subscribe: true }) },
          }),
          ...(this.#prompts.size > 0 && { prompts: { listChanged: false } }),
        },
        ...(this.instructions !== undefined && { instructions: this.instructions }),
        // Never send the client a request (sampling, elicitation) for a capability it did not declare:
        // the SDK then refuses at once, instead of a request the client cannot answer (or, on stateless
        // HTTP, whose answer could never come back) waiting for its timeout.
        enforceStrictCapabilities: true,
      },
    );
    for (const register of this.#registrations) register(server);
    if (this.#subscribable) this.updates.serve(server, this.#uriKind);
    return server;
  }

  /** What `uri` is among this server's resources (fixed URIs first, then templates in order). */
  readonly #uriKind = (uri: string): UriKind => {
    const fixed = this.#fixedUris.get(uri);
    if (fixed !== undefined) return fixed ? 'subscribable' : 'static';
    const matched = this.#templates.find(({ template }) => template.uriTemplate.match(uri) !== null);
    if (matched === undefined) return 'unknown';
    return matched.subscribable ? 'subscribable' : 'static';
  };
}

function claim(names: Map<string, string>, kind: string, name: string, source: string): void {
  const owner = names.get(name);
  if (owner !== undefined) {
    throw new PierError(
      'DUPLICATE_NAME',
      owner === source
        ? `${source} declares two ${kind}s named ${describe(name)}`
        : `${kind} ${describe(name)} of ${source} is already declared by ${owner}`,
    );
  }
  names.set(name, source);
}
