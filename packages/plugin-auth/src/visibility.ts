// The opt-in `visibility: 'hide'` policy: the four lists leave out what the caller's scopes do not allow,
// and such a list (it depends on who asks) is marked `cacheScope: "private"` on 2026-07-28.
import type { AuthInfo, McpServerExtension } from '@pier/core';
import { AuthPluginError } from './errors.js';

type McpServer = Parameters<NonNullable<McpServerExtension['setup']>>[0];
type Decide = (context: { request: unknown; authInfo?: AuthInfo }) => unknown;
interface Registration {
  readonly scopeChallenge?: Decide;
}
interface TemplateRegistration extends Registration {
  readonly resourceTemplate: { readonly uriTemplate: { match(uri: string): unknown } };
}
/** What the SDK's McpServer keeps of each registration (internal fields: checked at the first server built). */
interface Registry {
  readonly _registeredTools: Record<string, Registration>;
  readonly _registeredPrompts: Record<string, Registration>;
  readonly _registeredResources: Record<string, Registration>;
  readonly _registeredResourceTemplates: Record<string, TemplateRegistration>;
}
type Handler = (request: { id?: unknown }, ctx: ListContext) => unknown;
interface ListContext {
  readonly mcpReq?: { readonly envelope?: unknown };
  readonly http?: { readonly authInfo?: AuthInfo };
}
type Item = Record<string, unknown>;

const LISTS = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
} as const;

/**
 * Wraps the list handlers of `server` so that each item whose own scope check (the one its call, read or
 * get goes through, hierarchy included) would challenge the caller is left out. The decision is the
 * registration's: what a list shows is exactly what the caller may use.
 */
export function hideUnusable(server: McpServer): void {
  const handlers = (server.server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  const registry = server as unknown as Partial<Registry>;
  if (
    !(handlers instanceof Map) ||
    typeof registry._registeredTools !== 'object' ||
    typeof registry._registeredResourceTemplates !== 'object'
  ) {
    throw new AuthPluginError('AUTH_OPTIONS_INVALID', 'authPlugin()', [
      "visibility: 'hide' needs a version of @modelcontextprotocol/server whose list handlers Pier can wrap",
    ]);
  }
  const known = registry as Registry;
  for (const [method, key] of Object.entries(LISTS)) {
    const original = handlers.get(method) as Handler | undefined;
    if (original === undefined) continue;
    handlers.set(method, async (request: { id?: unknown }, ctx: ListContext) => {
      const result = (await original(request, ctx)) as Record<string, unknown>;
      const authInfo = ctx?.http?.authInfo;
      const items = Array.isArray(result[key]) ? (result[key] as Item[]) : [];
      const kept: Item[] = [];
      for (const item of items) {
        const registration = registrationOf(known, method as keyof typeof LISTS, item);
        const decide = registration?.scopeChallenge;
        if (authInfo === undefined || decide === undefined) {
          kept.push(item);
          continue;
        }
        const challenge = await decide({ request: { jsonrpc: '2.0', id: request.id, method }, authInfo });
        if (challenge === undefined) kept.push(item);
      }
      // A list that depends on who asks must never be shared by caches (2026-07-28 `cacheScope`); the
      // 2025 revisions have no such field.
      const modern = ctx?.mcpReq?.envelope !== undefined;
      return { ...result, [key]: kept, ...(modern && { cacheScope: 'private' }) };
    });
  }
}

function registrationOf(
  registry: Registry,
  method: keyof typeof LISTS,
  item: Item,
): Registration | undefined {
  switch (method) {
    case 'tools/list':
      return registry._registeredTools[String(item.name)];
    case 'prompts/list':
      return registry._registeredPrompts[String(item.name)];
    case 'resources/templates/list':
      return registry._registeredResourceTemplates[String(item.name)];
    case 'resources/list': {
      const uri = String(item.uri);
      const fixed = registry._registeredResources[uri];
      if (fixed !== undefined) return fixed;
      return Object.values(registry._registeredResourceTemplates).find(
        (template) => template.resourceTemplate.uriTemplate.match(uri) !== null,
      );
    }
  }
}
