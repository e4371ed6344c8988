// MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865) in the declaration model: a `ui://`
// resource holds a view's HTML, a tool links to it with `_meta.ui.resourceUri`. Checked where declared and
// again at `createServer` (a link to a view nobody declared), and advertised only when a server has a view.
import type { ServerCapabilities } from '@modelcontextprotocol/server';
import type { Meta } from '../declaring/meta.js';
import { isJsonObject } from '../engine/wire.js';
import { fail } from '../errors.js';

/** The extension's identifier, the key of `capabilities.extensions`. */
export const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** The MIME type of a view's HTML, which hosts require of a `ui://` resource. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The older flat key some hosts read instead of `_meta.ui.resourceUri`; Pier lists both. */
const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** Who may call a tool linked to a view: the model, the view (`app`), or both (the default). */
export type AppToolVisibility = 'model' | 'app';

/** `_meta.ui` of a tool: the view a host shows for its results, and who may call it. */
export interface AppToolMeta {
  /** A `ui://` resource of this server, such as `ui://notes/board`. */
  readonly resourceUri?: string;
  /** Default `['model', 'app']`: `['app']` hides the tool from the model, for calls the view makes. */
  readonly visibility?: readonly AppToolVisibility[];
}

/** Origins a view may reach, as the host writes them into its Content Security Policy. */
export interface AppCsp {
  /** `connect-src`: origins of `fetch`, XHR and WebSocket calls. */
  readonly connectDomains?: readonly string[];
  /** `img-src`, `script-src`, `style-src`, `font-src`, `media-src`: origins of static assets. */
  readonly resourceDomains?: readonly string[];
  /** `frame-src`: origins of nested frames. */
  readonly frameDomains?: readonly string[];
  /** `base-uri`: origins a `<base>` element may name. */
  readonly baseUriDomains?: readonly string[];
}

/** `_meta.ui` of a `ui://` resource: how the host sandboxes and frames the view. */
export interface AppResourceMeta {
  readonly csp?: AppCsp;
  /** Browser features the view asks for; the host may refuse them. */
  readonly permissions?: {
    readonly camera?: Record<string, never>;
    readonly microphone?: Record<string, never>;
    readonly geolocation?: Record<string, never>;
    readonly clipboardWrite?: Record<string, never>;
  };
  /** A dedicated sandbox origin, in the format the host documents. */
  readonly domain?: string;
  /** `true` asks for a visible border and background, `false` for none; hosts decide when it is left out. */
  readonly prefersBorder?: boolean;
}

/** A tool's `_meta`: any keys of your own, and the view it is linked to. */
export interface ToolMeta extends Meta {
  readonly ui?: AppToolMeta;
}

/** A resource's `_meta`: any keys of your own, and for a `ui://` view how it is framed. */
export interface ResourceMeta extends Meta {
  readonly ui?: AppResourceMeta;
}

const VISIBILITY: readonly unknown[] = ['model', 'app'];
const CSP_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'];

/**
 * Checks a tool's `_meta.ui` and lists the link under both keys, `ui.resourceUri` and the older flat
 * `ui/resourceUri`, whichever was declared: hosts read one or the other (the extension's own
 * `registerAppTool` fills in both the same way).
 */
export function toolAppMeta(meta: Meta | undefined, where: string): Meta | undefined {
  const ui = meta?.ui;
  const legacy = meta?.[LEGACY_RESOURCE_URI_KEY];
  if (meta === undefined || (ui === undefined && legacy === undefined)) return meta;
  if (legacy !== undefined && !isUiUri(legacy)) {
    fail(where, `_meta["${LEGACY_RESOURCE_URI_KEY}"]`, 'a ui:// URI', legacy);
  }
  if (ui === undefined) return Object.freeze({ ...meta, ui: { resourceUri: legacy } });
  if (!isJsonObject(ui)) fail(where, '_meta.ui', 'an object { resourceUri?, visibility? }', ui);
  const { resourceUri, visibility } = ui;
  if (resourceUri !== undefined && !isUiUri(resourceUri)) {
    fail(where, '_meta.ui.resourceUri', 'a ui:// URI such as ui://notes/board', resourceUri);
  }
  if (
    visibility !== undefined &&
    (!Array.isArray(visibility) ||
      visibility.length === 0 ||
      !visibility.every((value) => VISIBILITY.includes(value)))
  ) {
    fail(where, '_meta.ui.visibility', "a non-empty array of 'model' and 'app'", visibility);
  }
  if (ui.csp !== undefined || ui.permissions !== undefined) {
    fail(where, '_meta.ui', 'without csp and permissions: they belong on the ui:// resource', ui);
  }
  if (resourceUri === undefined) {
    return legacy === undefined ? meta : Object.freeze({ ...meta, ui: { ...ui, resourceUri: legacy } });
  }
  if (legacy !== undefined && legacy !== resourceUri) {
    fail(
      where,
      `_meta["${LEGACY_RESOURCE_URI_KEY}"]`,
      `left out, or the same as _meta.ui.resourceUri`,
      legacy,
    );
  }
  return Object.freeze({ ...meta, [LEGACY_RESOURCE_URI_KEY]: resourceUri });
}

/**
 * Checks a resource against the extension: a `ui://` resource serves {@link APP_MIME_TYPE} (the default
 * when it names none), and `_meta.ui` is only on a `ui://` resource, shaped as {@link AppResourceMeta}.
 * Returns the MIME type to serve.
 */
export function resourceAppMime(
  address: string,
  mimeType: string | undefined,
  meta: Meta | undefined,
  where: string,
): string | undefined {
  const ui = meta?.ui;
  const isView = address.toLowerCase().startsWith('ui://');
  if (ui !== undefined) {
    if (!isView) fail(where, '_meta.ui', 'set only on a ui:// resource (a view)', ui);
    checkResourceUi(ui, where);
  }
  if (!isView) return mimeType;
  if (mimeType === undefined) return APP_MIME_TYPE;
  if (mimeType.replace(/\s+/g, '').toLowerCase() !== APP_MIME_TYPE) {
    fail(where, 'mimeType', `${APP_MIME_TYPE} for a ui:// resource (left out, it is the default)`, mimeType);
  }
  return mimeType;
}

/**
 * Checks what only the whole server shows: every tool's view is a `ui://` resource it declares. Returns the
 * capability to advertise, or `undefined` for a server without views.
 */
export function appsCapability(declarations: {
  readonly tools: readonly { readonly declaration: { readonly name: string; readonly _meta?: Meta } }[];
  readonly resources: readonly {
    readonly declaration: { readonly uri?: string; readonly uriTemplate?: string };
  }[];
}): ServerCapabilities | undefined {
  const views = new Set<string>();
  for (const { declaration } of declarations.resources) {
    const address = declaration.uri ?? declaration.uriTemplate;
    if (address?.toLowerCase().startsWith('ui://')) views.add(declaration.uri ?? '');
  }
  let linked = false;
  for (const { declaration: tool } of declarations.tools) {
    const uri =
      (tool._meta?.ui as AppToolMeta | undefined)?.resourceUri ?? tool._meta?.[LEGACY_RESOURCE_URI_KEY];
    if (typeof uri !== 'string') continue;
    linked = true;
    if (!views.has(uri)) {
      fail(
        `createServer: tool "${tool.name}"`,
        '_meta.ui.resourceUri',
        'the URI of a ui:// resource the server declares',
        uri,
        'DECLARATION_INVALID',
      );
    }
  }
  return linked || views.size > 0 ? { extensions: { [APPS_EXTENSION_ID]: {} } } : undefined;
}

function checkResourceUi(ui: unknown, where: string): void {
  if (!isJsonObject(ui))
    fail(where, '_meta.ui', 'an object { csp?, permissions?, domain?, prefersBorder? }', ui);
  const { csp, permissions, domain, prefersBorder } = ui;
  if (csp !== undefined) {
    if (!isJsonObject(csp)) fail(where, '_meta.ui.csp', `an object of ${CSP_FIELDS.join(', ')}`, csp);
    for (const [field, origins] of Object.entries(csp)) {
      if (!(CSP_FIELDS as readonly string[]).includes(field)) {
        fail(where, `_meta.ui.csp.${field}`, `one of ${CSP_FIELDS.join(', ')}`, field);
      }
      if (
        !Array.isArray(origins) ||
        !origins.every((origin) => typeof origin === 'string' && origin !== '')
      ) {
        fail(where, `_meta.ui.csp.${field}`, 'an array of origins such as https://api.example.com', origins);
      }
    }
  }
  if (permissions !== undefined) {
    if (!isJsonObject(permissions))
      fail(where, '_meta.ui.permissions', `an object of ${PERMISSIONS.join(', ')}`, permissions);
    for (const [field, value] of Object.entries(permissions)) {
      if (!PERMISSIONS.includes(field) || !isJsonObject(value)) {
        fail(where, `_meta.ui.permissions.${field}`, `one of ${PERMISSIONS.join(', ')}, set to {}`, value);
      }
    }
  }
  if (domain !== undefined && (typeof domain !== 'string' || domain === '')) {
    fail(where, '_meta.ui.domain', 'a non-empty string', domain);
  }
  if (prefersBorder !== undefined && typeof prefersBorder !== 'boolean') {
    fail(where, '_meta.ui.prefersBorder', 'a boolean', prefersBorder);
  }
}

function isUiUri(value: unknown): value is string {
  return typeof value === 'string' && /^ui:\/\/[^\s]+$/i.test(value) && URL.canParse(value);
}
