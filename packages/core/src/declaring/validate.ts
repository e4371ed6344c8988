// Checks every declaration field once, where it is declared, with a message naming where and which field.

import { fail, PierError } from '../errors.js';
import { resourceAppMime, toolAppMeta } from '../extensions/apps.js';
import type { PierPlugin } from '../plugins/api.js';
import { optionalIcons, optionalMeta } from './meta.js';
import type { JsonObjectSchema, PromptDeclaration, ResourceDeclaration, ToolDeclaration } from './model.js';
import type { MCPServerOptions, ServerDeclaration } from './server-declaration.js';

const VERSION = /^\d+(\.\d+){0,2}(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;
// SEP-986; the SDK only warns (on every registration, so on every HTTP request): Pier refuses instead.
const TOOL_NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,126}[A-Za-z0-9_])?$/;

type Fields = Readonly<Record<string, unknown>>;

/** Validates a server's identity and plugins; `where` starts the message (`@MCPServer on class X`). */
export function validateServerOptions(value: unknown, where: string): MCPServerOptions {
  const fields = record(value, where, 'options', 'an object with name and version');
  const name = fields.name;
  if (typeof name !== 'string' || name.trim() === '') {
    fail(where, 'name', 'a non-empty string', name);
  }
  const version = fields.version;
  if (typeof version !== 'string' || !VERSION.test(version)) {
    fail(where, 'version', 'dotted numbers such as 1.0.0 (optionally -beta.1 or +build.5)', version);
  }
  const options: MCPServerOptions = {
    name,
    version,
    ...optionalString(fields, 'title', where),
    ...optionalString(fields, 'description', where),
    ...optionalIcons(fields, where),
    ...optionalWebsite(fields, where),
    ...optionalMeta(fields, where),
    ...optionalString(fields, 'instructions', where),
    plugins: validatePlugins(fields.plugins, where),
  };
  return options;
}

/** Validates a whole plain declaration (the form `defineServer` and `createServer` accept). */
export function validateServerDeclaration(value: unknown, where: string): ServerDeclaration {
  const options = validateServerOptions(value, where);
  const fields = value as Fields;
  return {
    ...options,
    tools: list(fields, 'tools', where).map((tool, i) => validateTool(tool, `${where}: tools[${i}]`)),
    resources: list(fields, 'resources', where).map((resource, i) =>
      validateResource(resource, `${where}: resources[${i}]`),
    ),
    prompts: list(fields, 'prompts', where).map((prompt, i) =>
      validatePrompt(prompt, `${where}: prompts[${i}]`),
    ),
  };
}

/** Validates one tool. */
export function validateTool(value: unknown, where: string): ToolDeclaration {
  const fields = record(value, where, 'tool', 'an object');
  const name = fields.name;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    fail(where, 'name', '1–128 characters of A-Z a-z 0-9 _ - . that does not start or end with - or .', name);
  }
  const tool: ToolDeclaration = {
    name,
    ...optionalString(fields, 'title', where),
    ...optionalString(fields, 'description', where),
    ...optionalSchema(fields, 'input', where),
    ...optionalSchema(fields, 'output', where),
    ...optionalObject(fields, 'annotations', where),
    ...optionalScopes(fields, where),
    ...optionalTask(fields, where),
    ...optionalIcons(fields, where),
    ...toolMeta(fields, where),
    handler: handler(fields, where),
  };
  return tool;
}

/** Validates one resource. */
export function validateResource(value: unknown, where: string): ResourceDeclaration {
  const fields = record(value, where, 'resource', 'an object');
  const name = fields.name;
  if (typeof name !== 'string' || name === '') fail(where, 'name', 'a non-empty string', name);
  const { uri, uriTemplate } = fields;
  let address: { uri: string } | { uriTemplate: string; complete?: never; list?: never };
  if (uriTemplate === undefined) {
    if (typeof uri !== 'string' || !URL.canParse(uri)) {
      fail(where, 'uri', 'an absolute URI such as config://app (or give a uriTemplate)', uri);
    }
    if (fields.list !== undefined)
      fail(where, 'list', 'left out: a fixed resource lists itself', fields.list);
    address = { uri };
  } else {
    if (uri !== undefined) fail(where, 'uri', 'left out when there is a uriTemplate', uri);
    if (typeof uriTemplate !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uriTemplate)) {
      fail(where, 'uriTemplate', 'an RFC 6570 template of an absolute URI such as users://{id}', uriTemplate);
    }
    const complete = fields.complete;
    if (complete !== undefined) {
      const valid =
        typeof complete === 'object' &&
        complete !== null &&
        Object.values(complete).every((value) => typeof value === 'function');
      if (!valid) fail(where, 'complete', 'an object of functions, by variable name', complete);
    }
    const lister = fields.list;
    if (lister !== undefined && typeof lister !== 'function') {
      fail(where, 'list', 'a function returning the URIs the template serves now', lister);
    }
    address = {
      uriTemplate,
      ...(complete !== undefined && { complete: complete as never }),
      ...(lister !== undefined && { list: lister as never }),
    };
  }
  const { _meta } = optionalMeta(fields, where);
  const { mimeType } = optionalString(fields, 'mimeType', where);
  const mime = resourceAppMime('uri' in address ? address.uri : address.uriTemplate, mimeType, _meta, where);
  return {
    name,
    ...address,
    ...optionalString(fields, 'title', where),
    ...optionalString(fields, 'description', where),
    ...(mime !== undefined && { mimeType: mime }),
    ...optionalObject(fields, 'annotations', where),
    ...optionalBoolean(fields, 'subscribable', where),
    ...optionalScopes(fields, where),
    ...optionalIcons(fields, where),
    ...(_meta !== undefined && { _meta }),
    handler: handler(fields, where),
  };
}

/** Validates one prompt. */
export function validatePrompt(value: unknown, where: string): PromptDeclaration {
  const fields = record(value, where, 'prompt', 'an object');
  const name = fields.name;
  if (typeof name !== 'string' || name === '') fail(where, 'name', 'a non-empty string', name);
  return {
    name,
    ...optionalString(fields, 'title', where),
    ...optionalString(fields, 'description', where),
    ...optionalSchema(fields, 'args', where),
    ...optionalScopes(fields, where),
    ...optionalIcons(fields, where),
    ...optionalMeta(fields, where),
    handler: handler(fields, where),
  };
}

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

/** Whether `value` is a zod (v4) schema. */
export function isZodSchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_zod' in value && '~standard' in value;
}

/** Whether `value` is a zod shape: a plain object whose every value is a zod schema. */
export function isZodShape(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || isZodSchema(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every(isZodSchema);
}

/** Whether `value` is a raw JSON Schema of an object: a plain object whose `type` is `'object'`. */
export function isJsonObjectSchema(value: unknown): value is JsonObjectSchema {
  if (typeof value !== 'object' || value === null || isZodSchema(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && (value as Fields).type === 'object';
}

/** Validates a list of plugins: each `{ name, setup }`, no two with one name. */
export function validatePlugins(value: unknown, where: string): readonly PierPlugin[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(where, 'plugins', 'an array of plugins', value, 'PLUGIN_INVALID');
  const seen = new Set<string>();
  return value.map((plugin: unknown, i) => {
    const field = `plugins[${i}]`;
    if (typeof plugin !== 'object' || plugin === null) {
      fail(where, field, 'a plugin object { name, setup }', plugin, 'PLUGIN_INVALID');
    }
    const { name, setup } = plugin as Fields;
    if (typeof name !== 'string' || name === '') {
      fail(where, `${field}.name`, 'a non-empty string', name, 'PLUGIN_INVALID');
    }
    if (typeof setup !== 'function') fail(where, `${field}.setup`, 'a function', setup, 'PLUGIN_INVALID');
    if (seen.has(name)) {
      throw new PierError('DUPLICATE_NAME', `${where}: two plugins are named "${name}"`);
    }
    seen.add(name);
    return plugin as PierPlugin;
  });
}

function record(value: unknown, where: string, field: string, expected: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(where, field, expected, value);
  return value as Fields;
}

function list(fields: Fields, field: string, where: string): readonly unknown[] {
  const value = fields[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(where, field, 'an array', value);
  return value;
}

function optionalString<K extends string>(fields: Fields, field: K, where: string): { [P in K]?: string } {
  const value = fields[field];
  if (value === undefined) return {};
  if (typeof value !== 'string') fail(where, field, 'a string', value);
  return { [field]: value } as { [P in K]?: string };
}

function optionalBoolean<K extends string>(fields: Fields, field: K, where: string): { [P in K]?: boolean } {
  const value = fields[field];
  if (value === undefined) return {};
  if (typeof value !== 'boolean') fail(where, field, 'a boolean', value);
  return { [field]: value } as { [P in K]?: boolean };
}

function optionalObject<K extends string>(fields: Fields, field: K, where: string): { [P in K]?: never } {
  const value = fields[field];
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(where, field, 'an object', value);
  return { [field]: value } as unknown as { [P in K]?: never };
}

function optionalSchema<K extends string>(fields: Fields, field: K, where: string): { [P in K]?: never } {
  const value = fields[field];
  if (value === undefined) return {};
  if (!isZodSchema(value) && !isZodShape(value) && !isJsonObjectSchema(value)) {
    fail(
      where,
      field,
      "a zod shape such as { city: z.string() }, a zod object schema, or a JSON Schema with type: 'object'",
      value,
    );
  }
  return { [field]: value } as unknown as { [P in K]?: never };
}

// RFC 6749 §3.3 scope-token: what the SDK's challenge accepts, so a bad scope fails here, not per request.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function optionalScopes(fields: Fields, where: string): { scopes?: readonly string[] } {
  const value = fields.scopes;
  if (value === undefined) return {};
  if (
    !Array.isArray(value) ||
    !value.every((scope) => typeof scope === 'string' && SCOPE_TOKEN.test(scope))
  ) {
    fail(where, 'scopes', 'an array of OAuth scopes such as ["notes:read"] (no spaces or quotes)', value);
  }
  return { scopes: Object.freeze([...new Set(value as string[])]) };
}

function toolMeta(fields: Fields, where: string): Pick<ToolDeclaration, '_meta'> {
  const _meta = toolAppMeta(optionalMeta(fields, where)._meta, where);
  return _meta === undefined ? {} : { _meta };
}

function optionalWebsite(fields: Fields, where: string): { websiteUrl?: string } {
  const url = fields.websiteUrl;
  if (url === undefined) return {};
  if (typeof url !== 'string' || !/^https?:/i.test(url) || !URL.canParse(url))
    fail(where, 'websiteUrl', 'an https: or http: URL', url);
  return { websiteUrl: url };
}

function handler(fields: Fields, where: string): never {
  const value = fields.handler;
  if (typeof value !== 'function') fail(where, 'handler', 'a function', value);
  return value as never;
}

const TASK_SUPPORT = ['never', 'optional', 'required'] as const;

function optionalTask(fields: Fields, where: string): Pick<ToolDeclaration, 'task'> {
  const task = fields.task;
  if (task === undefined) return {};
  if (!(TASK_SUPPORT as readonly unknown[]).includes(task))
    fail(where, 'task', "'never', 'optional' or 'required'", task);
  return { task: task as (typeof TASK_SUPPORT)[number] };
}
