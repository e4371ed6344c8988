// `subscriptions/listen` (2026-07-28): a request whose answer is a stream of the change notifications it
// asked for, acknowledged first, until the client leaves (or, on stdio, cancels it) or the server closes.
import { ProtocolError, ProtocolErrorCode, type ServerCapabilities } from '@modelcontextprotocol/server';
import type { ResourceUpdates } from '../../server/subscriptions.js';
import type { BusEvent } from '../../transports/host.js';
import type { Engine } from '../engine.js';
import { isJsonObject, type JsonObject, Meta, notificationMessage } from '../wire.js';

/** At most this many listen streams at once (the SDK's default). */
export const MAX_LISTENS = 1024;

interface Filter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

/** Defines `subscriptions/listen` on `engine`; streams end gracefully when the engine closes. */
export function defineListen(engine: Engine, updates: ResourceUpdates): void {
  const open = new Set<() => void>();
  engine.onClose(() => {
    for (const end of [...open]) end();
  });
  engine.define('subscriptions/listen', {
    eras: 'modern',
    run: async (call) => {
      const requested = call.params.notifications;
      if (!isFilter(requested)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter",
        );
      }
      if (open.size >= MAX_LISTENS)
        throw new ProtocolError(ProtocolErrorCode.InternalError, 'Subscription limit reached');
      const honored = honoredSubset(requested, engine.capabilities(true));
      const id = call.id;
      const stamp = (params: JsonObject): JsonObject =>
        Object.assign({}, params, {
          _meta: Object.assign({}, isJsonObject(params._meta) ? params._meta : undefined, {
            [Meta.subscriptionId]: id,
          }),
        });
      call.sendRelated(
        notificationMessage('notifications/subscriptions/acknowledged', stamp({ notifications: honored })),
      );
      const closed = {
        resultType: 'complete',
        _meta: { [Meta.subscriptionId]: id, [Meta.serverInfo]: engine.info },
      };
      if (Object.keys(honored).length === 0) return closed;
      await new Promise<void>((resolve) => {
        const unlisten = updates.listen((event) => {
          const notification = notificationOf(honored, event);
          if (notification !== undefined)
            call.sendRelated(notificationMessage(notification.method, stamp(notification.params)));
        });
        const signal = call.signal;
        const end = () => {
          if (!open.delete(end)) return;
          unlisten();
          signal.removeEventListener('abort', end);
          resolve();
        };
        open.add(end);
        if (signal.aborted) end();
        else signal.addEventListener('abort', end, { once: true });
      });
      return closed;
    },
  });
}

function isFilter(value: unknown): value is Filter {
  if (!isJsonObject(value)) return false;
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'boolean') return false;
  }
  const uris = value.resourceSubscriptions;
  return uris === undefined || (Array.isArray(uris) && uris.every((uri) => typeof uri === 'string'));
}

/** What the server can deliver of what was asked: opted-in kinds it advertises. */
function honoredSubset(requested: Filter, capabilities: ServerCapabilities): Filter {
  const honored: Filter = {};
  if (requested.toolsListChanged === true && capabilities.tools?.listChanged === true)
    honored.toolsListChanged = true;
  if (requested.promptsListChanged === true && capabilities.prompts?.listChanged === true)
    honored.promptsListChanged = true;
  if (requested.resourcesListChanged === true && capabilities.resources?.listChanged === true) {
    honored.resourcesListChanged = true;
  }
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined && uris.length > 0 && capabilities.resources?.subscribe === true) {
    honored.resourceSubscriptions = [...uris];
  }
  return honored;
}

function notificationOf(filter: Filter, event: BusEvent): { method: string; params: JsonObject } | undefined {
  const params = (event.params ?? {}) as JsonObject;
  switch (event.kind) {
    case 'tools_list_changed':
      return filter.toolsListChanged ? { method: 'notifications/tools/list_changed', params } : undefined;
    case 'prompts_list_changed':
      return filter.promptsListChanged ? { method: 'notifications/prompts/list_changed', params } : undefined;
    case 'resources_list_changed':
      return filter.resourcesListChanged
        ? { method: 'notifications/resources/list_changed', params }
        : undefined;
    case 'resource_updated':
      return filter.resourceSubscriptions?.includes(event.uri) === true
        ? { method: 'notifications/resources/updated', params: Object.assign({}, params, { uri: event.uri }) }
        : undefined;
    default:
      return undefined;
  }
}
