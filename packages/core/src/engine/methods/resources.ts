// `resources/list`, `resources/templates/list`, `resources/read`, and the 2025 subscriptions
// (`resources/subscribe`, `resources/unsubscribe`). A template's `list` lists what it serves now; what a
// caller may not read (the template's scopes) is never listed, nor is its `list` even called.
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import { HandlerContext } from '../../context/handler-context.js';
import type { ResourceNotifier } from '../../context/types.js';
import { listedMeta } from '../../declaring/meta.js';
import type { ListedResource, ListedResources, ResourceDeclaration } from '../../declaring/model.js';
import { describeValue, messageOf } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Call } from '../call.js';
import type { ResourceEntry } from '../catalog.js';
import type { Engine } from '../engine.js';
import type { Target } from '../middleware.js';
import { toResourceResult } from '../results.js';
import type { Rounds } from '../rounds.js';
import { isJsonObject, type JsonObject } from '../wire.js';
import { listPage } from './lists.js';

/** Another source of resources (the skills extension): its listing and what it reads. */
export interface ResourceSource {
  /** Resources it lists in `resources/list`, after the server's own. */
  list?(call: Call): Promise<readonly JsonObject[]>;
  /** Its entries of `resources/templates/list`. */
  readonly templates?: readonly JsonObject[];
  /** Whether it serves `uri`. */
  serves(uri: string): boolean;
  read(call: Call, uri: string): Promise<JsonObject>;
}

/** Defines the resource methods on `engine`. */
export function defineResources(
  engine: Engine,
  rounds: Rounds,
  notifier: ResourceNotifier,
  sources: readonly ResourceSource[],
): void {
  const catalog = engine.catalog;
  const loggers = new Map<ResourceEntry, Logger>();
  for (const entry of [...catalog.fixed.values(), ...catalog.templates]) {
    loggers.set(entry, engine.logger.child(`resource:${entry.name}`));
  }
  const fixedList = Object.freeze([...catalog.fixed.values()].map((entry) => entry.listed));
  const templateList = Object.freeze([
    ...catalog.templateList,
    ...sources.flatMap((source) => source.templates ?? []),
  ]);

  engine.define('resources/list', {
    eras: 'both',
    run: async (call) => {
      const listed: JsonObject[] = [...fixedList];
      for (const template of catalog.templates) {
        if ((template.declaration as { list?: unknown }).list === undefined) continue;
        // A caller who may not read the template's resources does not learn which exist either.
        if (!engine.allows(call.auth, template.declaration.scopes)) continue;
        listed.push(...(await listTemplate(call, template, notifier, loggers.get(template) as Logger)));
      }
      for (const source of sources) if (source.list !== undefined) listed.push(...(await source.list(call)));
      return { resources: listed };
    },
  });
  engine.define('resources/templates/list', {
    eras: 'both',
    run: (call) => listPage(call, 'resourceTemplates', templateList),
  });
  engine.define('resources/read', {
    eras: 'both',
    resolve: (call) => {
      const uri = call.params.uri;
      if (typeof uri !== 'string' || !URL.canParse(uri)) return undefined;
      return targetOf(catalog.resource(new URL(uri).href)?.entry);
    },
    run: async (call) => {
      const raw = call.params.uri;
      if (typeof raw !== 'string') {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'Invalid resources/read request: params.uri must be a string',
        );
      }
      if (call.era === 'modern' && call.params.requestState !== undefined) await rounds.verify(call);
      let uri: URL;
      try {
        uri = new URL(raw);
      } catch {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource URI ${raw} is invalid`, {
          uri: raw,
          reason: 'invalid_uri',
        });
      }
      const found = catalog.resource(uri.href);
      if (found === undefined) {
        for (const source of sources) if (source.serves(uri.href)) return source.read(call, uri.href);
        throw new ResourceNotFoundError(raw);
      }
      return readResource(
        call,
        found.entry,
        uri,
        found.variables,
        rounds,
        notifier,
        loggers.get(found.entry) as Logger,
      );
    },
  });
  engine.define('resources/subscribe', {
    eras: 'legacy',
    resolve: (call) => {
      const uri = call.params.uri;
      return typeof uri === 'string' && URL.canParse(uri)
        ? targetOf(catalog.resource(new URL(uri).href)?.entry)
        : undefined;
    },
    run: (call) => {
      const uri = uriParam(call);
      const found = URL.canParse(uri) ? catalog.resource(new URL(uri).href) : undefined;
      // The same error as resources/read gives for that URI.
      if (found === undefined) throw new ResourceNotFoundError(uri);
      if (!found.entry.subscribable) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Resource ${uri} does not change, so it sends no updates to subscribe to`,
          { uri },
        );
      }
      const connection = call.connection;
      // A stateless request is answered and gone: accepting would promise updates nothing could carry.
      if (connection === undefined) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          'Subscriptions need a connection that outlives the request: this server is stateless HTTP, which cannot send updates later (use stdio, or HTTP with sessions)',
        );
      }
      connection.subscriptions ??= new Set();
      connection.subscriptions.add(uri);
      return {};
    },
  });
  engine.define('resources/unsubscribe', {
    eras: 'legacy',
    run: (call) => {
      call.connection?.subscriptions?.delete(uriParam(call));
      return {};
    },
  });
}

function targetOf(entry: ResourceEntry | undefined): Target | undefined {
  return entry === undefined
    ? undefined
    : { kind: 'resource', name: entry.name, declaration: entry.declaration };
}

function uriParam(call: Call): string {
  const uri = call.params.uri;
  if (typeof uri !== 'string') {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid ${call.method} request: params.uri must be a string`,
    );
  }
  return uri;
}

async function readResource(
  call: Call,
  entry: ResourceEntry,
  uri: URL,
  variables: Readonly<Record<string, string | string[]>>,
  rounds: Rounds,
  notifier: ResourceNotifier,
  logger: Logger,
): Promise<JsonObject> {
  const declaration = entry.declaration;
  const handler = declaration.handler as (uri: URL, ctx: unknown) => unknown;
  try {
    return (await rounds.run(call, uri.href, {}, async (round) =>
      toResourceResult(
        await handler(uri, new HandlerContext(call, logger, notifier, round, variables)),
        uri.href,
        declaration.mimeType,
        declaration._meta,
      ),
    )) as JsonObject;
  } catch (error) {
    logger.warn('resource read failed', { error: messageOf(error) });
    throw error;
  }
}

/** What a template's `list` returns, as `resources/list` entries: URIs the template does not match are left out. */
async function listTemplate(
  call: Call,
  template: ResourceEntry,
  notifier: ResourceNotifier,
  logger: Logger,
): Promise<JsonObject[]> {
  const declaration = template.declaration as ResourceDeclaration & { readonly uriTemplate: string };
  const list = declaration.list as NonNullable<typeof declaration.list>;
  let listed: ListedResources;
  try {
    listed = await list(new HandlerContext(call, logger, notifier));
  } catch (error) {
    logger.warn('resource list failed', { error: messageOf(error) });
    throw error;
  }
  if (!Array.isArray(listed)) {
    logger.warn('resource list ignored: list() must return an array', { got: describeValue(listed) });
    return [];
  }
  const resources: JsonObject[] = [];
  const matcher = template.template;
  for (const entry of listed as readonly unknown[]) {
    const item = typeof entry === 'string' ? { uri: entry } : entry;
    const uri = (item as { uri?: unknown } | null)?.uri;
    if (typeof uri !== 'string' || matcher?.match(uri) === null || matcher === undefined) {
      logger.warn('listed resource left out: not a URI of the template', {
        uriTemplate: declaration.uriTemplate,
        got: describeValue(typeof entry === 'string' ? entry : uri),
      });
      continue;
    }
    const { name, title, description, mimeType, icons, _meta } = item as Exclude<ListedResource, string>;
    const mime = mimeType ?? declaration.mimeType;
    // As the SDK lists them: the template's own metadata, then the item's.
    resources.push(
      Object.assign({}, template.metadata, listedMeta(declaration), {
        uri,
        name: typeof name === 'string' && name !== '' ? name : uri,
        ...(typeof title === 'string' && { title }),
        ...(typeof description === 'string' && { description }),
        ...(mime !== undefined && { mimeType: mime }),
        ...(Array.isArray(icons) && { icons }),
        ...(isJsonObject(_meta) && { _meta: Object.assign({}, declaration._meta, _meta) }),
      }),
    );
  }
  return resources;
}
