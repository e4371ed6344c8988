// The skills extension (SEP-2640, `io.modelcontextprotocol/skills`). The SDK's `SkillsExtension` does the
// protocol (skills/list, skills/get, the skill:// resources, directory reads, path traversal and symlinks
// refused) and attaches to whatever offers the public face of an `McpServer`: its registration methods.
// Pier offers it a recorder of that face, once per era, and serves what was registered from the engine's
// own method table; no SDK server is built. Pier loads the catalog and announces a reload on the bus.
import type { AuthInfo } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, type ResourceTemplate } from '@modelcontextprotocol/server';
import {
  SkillCatalog,
  type SkillCatalogChanges,
  type SkillFiles,
  type SkillSource,
  SkillsExtension,
  type SkillWarning,
} from '@modelcontextprotocol/server/ext/skills';
import type { Call } from '../engine/call.js';
import type { Engine } from '../engine/engine.js';
import type { ResourceSource } from '../engine/methods/resources.js';
import { type JsonObject, MODERN_VERSION } from '../engine/wire.js';
import { describeValue, messageOf, PierError } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * Where a server's skills come from (`createServer(…, { skills })`): a folder of skill folders (each with a
 * `SKILL.md`), a `SkillFiles` storage adapter (`memorySkillFiles({...})` of
 * `@modelcontextprotocol/server/ext/skills`), or a `SkillSource` you serve yourself (per-user or generated).
 * A `SkillSource`'s methods get a small request context: `mcpReq` (`id`, `method`, `signal`), `sessionId`
 * and `http.authInfo`.
 */
export type SkillsOption = string | SkillFiles | SkillSource;

export type { SkillCatalogChanges, SkillFiles, SkillSource };

/** The URI scheme every skill is served under; Pier's own resources may not use it. */
export const SKILL_URI_PREFIX = 'skill://';

type Handler = (params: unknown, ctx: unknown) => unknown;
type ParamsSchema = { safeParse(value: unknown): { success: boolean; data?: unknown } };

/** What the extension registered on one era's recorder. */
interface Registered {
  readonly methods: Map<string, { readonly schema: ParamsSchema | undefined; readonly handler: Handler }>;
  template: ResourceTemplate | undefined;
  read: ((uri: URL, variables: unknown, ctx: unknown) => unknown) | undefined;
  capabilities: JsonObject;
}

/** One server's skills: loaded once (by `listen()` or `reloadSkills()`), served by the engine. */
export class Skills {
  /** A folder (read through the SDK's node adapter, imported by the first load), or files, or none for a source. */
  readonly #files: string | SkillFiles | undefined;
  readonly #logger: Logger;
  readonly #announce: () => Promise<void>;
  #extension: SkillsExtension | undefined;
  readonly #source: SkillSource | undefined;
  #loading: Promise<SkillCatalog> | undefined;
  /** What the extension registered, per era (it reads the era for its cache fields). */
  #registered: { readonly modern: Registered; readonly legacy: Registered } | undefined;
  #warnedUnloaded = false;

  constructor(option: SkillsOption, logger: Logger, announce: () => Promise<void>) {
    this.#logger = logger;
    this.#announce = announce;
    const onWarning = (warning: SkillWarning) =>
      logger.warn('skill problem', { path: warning.path, problem: warning.message });
    if (typeof option === 'string') {
      // Resolved now, as the SDK's adapter would: a later chdir does not move the folder.
      this.#files = resolvePath(option);
      this.#source = undefined;
    } else if (isSkillSource(option)) {
      this.#files = undefined;
      this.#source = option;
      this.#extension = new SkillsExtension({ source: option, onWarning });
    } else {
      this.#files = option;
      this.#source = undefined;
    }
  }

  /** Loads the catalog from its files, once; a source needs no loading. */
  async load(): Promise<void> {
    if (this.#files === undefined || this.#loading !== undefined) {
      await this.#loading;
      return;
    }
    this.#loading = this.#loadCatalog(this.#files);
    try {
      this.#extension = await this.#loading;
      this.#registered = undefined;
      this.#logger.debug('skills loaded', { skills: (this.#extension as SkillCatalog).entries.length });
    } catch (error) {
      this.#loading = undefined;
      throw new PierError(
        'OPTIONS_INVALID',
        `createServer: skills could not be loaded: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  async #loadCatalog(files: string | SkillFiles): Promise<SkillCatalog> {
    // The SDK's node adapter (and node:fs with it) is imported only by a server that serves a folder.
    const source =
      typeof files === 'string'
        ? (await import('@modelcontextprotocol/server/ext/skills/node')).nodeSkillFiles(files)
        : files;
    return SkillCatalog.load(source, {
      onWarning: (warning) =>
        this.#logger.warn('skill problem', { path: warning.path, problem: warning.message }),
    });
  }

  /**
   * Scans the files again (the first call loads them). When the list of skills changed, a
   * `resources_list_changed` event goes on the server's event bus, so that every connection hears it.
   */
  async reload(): Promise<SkillCatalogChanges> {
    if (this.#extension === undefined) {
      await this.load();
      const entries = (this.#extension as SkillCatalog | undefined)?.entries ?? [];
      return { added: entries.map((entry) => entry.uri), removed: [], changed: [], listChanged: false };
    }
    if (!(this.#extension instanceof SkillCatalog)) {
      // A source serves what it serves at each request: nothing to scan, but clients may re-list.
      await this.#announce();
      return { added: [], removed: [], changed: [], listChanged: true };
    }
    const changes = await this.#extension.reload();
    if (changes.listChanged) await this.#announce();
    return changes;
  }

  /**
   * The capabilities the extension declares: `extensions['io.modelcontextprotocol/skills']`, with
   * `directoryRead` where the skills can be browsed (a catalog always; a source that reads directories).
   * A reload may change the list, so `resources.listChanged`.
   */
  get capabilities(): JsonObject {
    const browsable =
      this.#files !== undefined ||
      typeof (this.#source as Partial<SkillSource> | undefined)?.readDirectory === 'function';
    return {
      resources: { listChanged: true },
      extensions: { 'io.modelcontextprotocol/skills': browsable ? { directoryRead: true } : {} },
    };
  }

  /** Serves the skills methods and the `skill://` resources on `engine`. */
  define(engine: Engine): ResourceSource {
    const methods = ['skills/list', 'skills/get', 'resources/directory/read'];
    for (const method of methods) {
      engine.define(method, {
        eras: 'both',
        run: async (call) => {
          const registered = this.#forEra(call);
          const entry = registered?.methods.get(method);
          if (entry === undefined) {
            throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
          }
          let params: unknown = call.params;
          if (entry.schema !== undefined) {
            const parsed = entry.schema.safeParse(call.params);
            if (!parsed.success)
              throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for ${method}`);
            params = parsed.data;
          }
          return (await entry.handler(params, sourceContext(call))) as JsonObject;
        },
      });
    }
    return {
      templates: [{ name: 'io.modelcontextprotocol/skills', uriTemplate: `${SKILL_URI_PREFIX}{+path}` }],
      serves: (uri) => uri.startsWith(SKILL_URI_PREFIX),
      read: async (call, uri) => {
        const registered = this.#forEra(call);
        const template = registered?.template;
        const variables = template?.uriTemplate.match(uri);
        if (registered?.read === undefined || variables == null) {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
        }
        return (await registered.read(new URL(uri), variables, sourceContext(call))) as JsonObject;
      },
      list: async (call) => {
        const listed = await this.#forEra(call)?.template?.listCallback?.(sourceContext(call) as never);
        return (listed?.resources ?? []) as unknown as JsonObject[];
      },
    };
  }

  /** What the extension registered for the call's era (attached on first use, once the catalog is loaded). */
  #forEra(call: Call): Registered | undefined {
    const extension = this.#extension;
    if (extension === undefined) {
      if (!this.#warnedUnloaded) {
        this.#warnedUnloaded = true;
        this.#logger.warn(
          'skills are not loaded yet, so none are served: listen() loads them, or call await server.reloadSkills()',
        );
      }
      return undefined;
    }
    this.#registered ??= { modern: record(extension, MODERN_VERSION), legacy: record(extension, undefined) };
    return call.era === 'modern' ? this.#registered.modern : this.#registered.legacy;
  }
}

/**
 * Attaches `extension` to a recorder of the public registration face of an `McpServer`, and returns what
 * it registered. `version` is what the recorder says it negotiated (the extension adds cache fields for
 * 2026-07-28 answers).
 */
function record(extension: SkillsExtension, version: string | undefined): Registered {
  const registered: Registered = {
    methods: new Map(),
    template: undefined,
    read: undefined,
    capabilities: {},
  };
  const server = {
    assertCanSetRequestHandler(method: string): void {
      if (registered.methods.has(method)) throw new Error(`a handler for ${method} is already set`);
    },
    setRequestHandler(method: string, schemas: { params?: ParamsSchema } | Handler, handler?: Handler): void {
      const schema = typeof schemas === 'function' ? undefined : schemas.params;
      registered.methods.set(method, {
        schema,
        handler: (typeof schemas === 'function' ? schemas : handler) as Handler,
      });
    },
    registerCapabilities(capabilities: JsonObject): void {
      registered.capabilities = capabilities;
    },
    getNegotiatedProtocolVersion: () => version,
    sendResourceListChanged: async () => undefined,
    transport: undefined,
  };
  const face = {
    server,
    isConnected: () => false,
    registerResource(
      _name: string,
      template: ResourceTemplate,
      _config: unknown,
      read: Registered['read'],
    ): void {
      registered.template = template;
      registered.read = read;
    },
  };
  extension.attach(face as never);
  return registered;
}

/** The context a skill source's methods receive: what Pier knows of the request. */
function sourceContext(call: Call): {
  readonly sessionId: string | undefined;
  readonly mcpReq: { readonly id: string | number; readonly method: string; readonly signal: AbortSignal };
  readonly http: { readonly authInfo: AuthInfo | undefined };
} {
  return {
    sessionId: call.sessionId,
    mcpReq: { id: call.id, method: call.method, signal: call.signal },
    http: { authInfo: call.auth },
  };
}

function resolvePath(path: string): string {
  const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  const node =
    typeof load === 'function' ? (load('node:path') as { resolve(path: string): string }) : undefined;
  return node === undefined ? path : node.resolve(path);
}

/** Checks the `skills` option of `createServer`. */
export function validateSkillsOption(value: unknown): void {
  if (value === undefined) return;
  if (typeof value === 'string') {
    if (value === '')
      throw new PierError('OPTIONS_INVALID', 'createServer: skills must not be an empty path');
    return;
  }
  const candidate = value as Partial<SkillFiles> | null;
  if (typeof candidate?.list !== 'function' || typeof candidate.read !== 'function') {
    throw new PierError(
      'OPTIONS_INVALID',
      `createServer: skills must be a folder path, a SkillFiles ({ list, read }) or a SkillSource ({ list, get, read }) (got ${describeValue(value)})`,
    );
  }
}

function isSkillSource(value: SkillFiles | SkillSource): value is SkillSource {
  return typeof (value as Partial<SkillSource>).get === 'function';
}
