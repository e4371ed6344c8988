// Everything a server serves, collected from its class (or plain declaration) and its plugins, checked for
// clashes and prepared once (schemas converted, templates parsed). Building SDK servers from it is
// sdk-servers.ts's job.
import { ResourceTemplate, type ToolAnnotations } from '@modelcontextprotocol/server';
import { clientError } from './client-errors.js';
import type { HttpAuthenticator, HttpRoute, McpObserver, McpServerExtension } from './contract.js';
import type {
  CompleteVariable,
  PromptDeclaration,
  ResourceDeclaration,
  ToolDeclaration,
} from './declaration.js';
import { describe, fail, messageOf, PierError } from './errors.js';
import type { Logger } from './logger.js';
import { type PreparedSchema, prepareObjectSchema } from './schema.js';
import { maySee } from './scope-check.js';
import type { UriKind } from './subscriptions.js';

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

/** A resource, ready to register; `template` is set for a `uriTemplate` resource. */
export interface PreparedResource {
  readonly declaration: ResourceDeclaration;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly template: ResourceTemplate | undefined;
  readonly subscribable: boolean;
}

/** A prompt, ready to register. */
export interface PreparedPrompt {
  readonly declaration: PromptDeclaration;
  readonly argsSchema: PreparedSchema | undefined;
}

/** Builds a `uriTemplate` resource's `list` callback for the SDK (see sdk-servers.ts). */
export type TemplateLister = (
  resource: ResourceDeclaration & { readonly uriTemplate: string },
) => ConstructorParameters<typeof ResourceTemplate>[1]['list'];

/** Collects registrations and rejects clashes, with a message naming both owners. */
export class Declarations {
  readonly tools: PreparedTool[] = [];
  readonly resources: PreparedResource[] = [];
  readonly prompts: PreparedPrompt[] = [];
  readonly extensions: McpServerExtension[] = [];
  readonly observers: McpObserver[] = [];
  readonly #toolNames = new Map<string, string>();
  readonly #resourceNames = new Map<string, string>();
  readonly #resourceUris = new Map<string, string>();
  readonly #promptNames = new Map<string, string>();
  readonly #routes = new Map<string, { readonly route: HttpRoute; readonly source: string }>();
  /** Fixed resource URIs, and whether each is subscribable. */
  readonly #fixedUris = new Map<string, boolean>();
  #authenticator: { readonly authenticator: HttpAuthenticator; readonly source: string } | undefined;

  constructor(
    private readonly lister: TemplateLister,
    private readonly logger: Logger,
  ) {}

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
      this.#fixedUris.set(resource.uri, subscribable);
      this.resources.push({ declaration: resource, metadata, template: undefined, subscribable });
      return;
    }
    claim(this.#resourceUris, 'resource URI template', resource.uriTemplate, source);
    let template: ResourceTemplate;
    try {
      // Immutable once built, so one serves every SDK server.
      template = new ResourceTemplate(resource.uriTemplate, {
        list:
          resource.list === undefined ? undefined : this.#scopedList(resource.scopes, this.lister(resource)),
        ...(resource.complete !== undefined && {
          complete: this.#completers({ name: resource.name, complete: resource.complete }),
        }),
      });
    } catch (error) {
      fail(
        `resource "${resource.name}" of ${source}`,
        'uriTemplate',
        `a valid URI template (${messageOf(error)})`,
        resource.uriTemplate,
      );
    }
    this.resources.push({ declaration: resource, metadata, template, subscribable });
  }

  /** The template's completers, failing as a read fails: logged, a system failure hidden from the client. */
  #completers(resource: {
    readonly name: string;
    readonly complete: Readonly<Record<string, CompleteVariable>>;
  }): Record<string, CompleteVariable> {
    const logger = this.logger.child(`resource:${resource.name}`);
    const completers: Record<string, CompleteVariable> = {};
    for (const [variable, complete] of Object.entries(resource.complete)) {
      completers[variable] = async (value, context) => {
        try {
          return await complete(value, context);
        } catch (error) {
          logger.warn('completion failed', { variable, error: messageOf(error) });
          throw clientError(error);
        }
      };
    }
    return completers;
  }

  /**
   * A template's entries in `resources/list` are its data (a note's title): a caller who may not read the
   * template gets none of them, and its `list` does not run. The rest of the list still answers.
   */
  #scopedList(
    scopes: readonly string[] | undefined,
    list: ReturnType<TemplateLister>,
  ): ReturnType<TemplateLister> {
    if (list === undefined || scopes === undefined || scopes.length === 0) return list;
    return (mcp) => (maySee(this.authenticator, scopes, mcp?.http?.authInfo) ? list(mcp) : { resources: [] });
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

  addExtension(extension: unknown, source: string): void {
    const where = `${source}: extendMcpServer`;
    if (typeof extension !== 'object' || extension === null) {
      fail(where, 'extension', 'an object { capabilities?, setup? }', extension, 'PLUGIN_INVALID');
    }
    const { capabilities, setup } = extension as Partial<McpServerExtension>;
    if (capabilities !== undefined && (typeof capabilities !== 'object' || capabilities === null)) {
      fail(where, 'capabilities', 'an object', capabilities, 'PLUGIN_INVALID');
    }
    if (setup !== undefined && typeof setup !== 'function') {
      fail(where, 'setup', 'a function', setup, 'PLUGIN_INVALID');
    }
    this.extensions.push(Object.freeze({ ...(extension as McpServerExtension) }));
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

  /** What `uri` is among this server's resources (fixed URIs first, then templates in order). */
  readonly uriKind = (uri: string): UriKind => {
    const fixed = this.#fixedUris.get(uri);
    if (fixed !== undefined) return fixed ? 'subscribable' : 'static';
    const matched = this.resources.find(({ template }) => template?.uriTemplate.match(uri) != null);
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
