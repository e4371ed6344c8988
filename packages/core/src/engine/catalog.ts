// What the engine serves, prepared once at `createServer`: each tool with its input and output checks, its
// `tools/list` entry and its `Mcp-Param-*` declarations; each prompt with its arguments; each resource and
// template with its matcher. Nothing here is built again per request.
import { UriTemplate } from '@modelcontextprotocol/server';
import type { Declarations, PreparedPrompt, PreparedResource, PreparedTool } from '../declaring/gather.js';
import { listedMeta } from '../declaring/meta.js';
import type { PromptDeclaration, ResourceDeclaration, ToolDeclaration } from '../declaring/model.js';
import type { PreparedSchema } from '../declaring/schema.js';
import { type HeaderParam, scanHeaderParams } from './param-headers.js';
import { isJsonObject, type JsonObject } from './wire.js';

/** A declared tool, ready to serve. */
export interface ToolEntry {
  readonly kind: 'tool';
  readonly name: string;
  readonly declaration: ToolDeclaration;
  readonly input: PreparedSchema | undefined;
  readonly output: PreparedSchema | undefined;
  /** Its `tools/list` entry. */
  readonly listed: JsonObject;
  /** Its `x-mcp-header` parameters (SEP-2243); empty for most tools. */
  readonly headerParams: readonly HeaderParam[];
}

/** A declared prompt, ready to serve. */
export interface PromptEntry {
  readonly kind: 'prompt';
  readonly name: string;
  readonly declaration: PromptDeclaration;
  readonly args: PreparedSchema | undefined;
  readonly listed: JsonObject;
  /** Completers of completable arguments, by argument name. */
  readonly completers: ReadonlyMap<string, Completer>;
}

/** A declared resource at a fixed URI, or a template of URIs. */
export interface ResourceEntry {
  readonly kind: 'resource';
  readonly name: string;
  readonly declaration: ResourceDeclaration;
  /** The fixed URI, normalised as `new URL(uri).href`; `undefined` for a template. */
  readonly uri: string | undefined;
  readonly template: UriTemplate | undefined;
  readonly subscribable: boolean;
  /** Title, description, mime type and annotations: what every listing of it carries. */
  readonly metadata: JsonObject;
  /** Its `resources/list` entry (fixed) or `resources/templates/list` entry (template). */
  readonly listed: JsonObject;
}

/** Completes one value: the suggestions for what the user typed. */
export type Completer = (
  value: string,
  context?: { readonly arguments?: Record<string, string> },
) => readonly unknown[] | Promise<readonly unknown[]>;

/** Every declaration, by how requests find it. */
export class Catalog {
  readonly tools = new Map<string, ToolEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  /** Fixed resources by normalised URI. */
  readonly fixed = new Map<string, ResourceEntry>();
  /** Templates in declaration order. */
  readonly templates: ResourceEntry[] = [];
  readonly toolList: readonly JsonObject[];
  readonly promptList: readonly JsonObject[];
  readonly templateList: readonly JsonObject[];
  /** Whether any resource can be subscribed to. */
  readonly subscribable: boolean;
  /** Whether anything can be completed (`completion/complete` is advertised). */
  readonly completions: boolean;

  constructor(declarations: Declarations) {
    for (const tool of declarations.tools) this.tools.set(tool.declaration.name, toolEntry(tool));
    for (const prompt of declarations.prompts) this.prompts.set(prompt.declaration.name, promptEntry(prompt));
    for (const resource of declarations.resources) {
      const entry = resourceEntry(resource);
      if (entry.uri === undefined) this.templates.push(entry);
      else this.fixed.set(entry.uri, entry);
    }
    this.toolList = Object.freeze([...this.tools.values()].map((tool) => tool.listed));
    this.promptList = Object.freeze([...this.prompts.values()].map((prompt) => prompt.listed));
    this.templateList = Object.freeze(this.templates.map((template) => template.listed));
    this.subscribable = declarations.resources.some((resource) => resource.subscribable);
    this.completions =
      this.templates.some(
        (template) => (template.declaration as { complete?: unknown }).complete !== undefined,
      ) || [...this.prompts.values()].some((prompt) => prompt.completers.size > 0);
  }

  /** The resource or template serving `uri` (already normalised), with the template's variables. */
  resource(
    uri: string,
  ): { readonly entry: ResourceEntry; readonly variables: Record<string, string | string[]> } | undefined {
    const fixed = this.fixed.get(uri);
    if (fixed !== undefined) return { entry: fixed, variables: NO_VARIABLES };
    for (const template of this.templates) {
      const variables = (template.template as UriTemplate).match(uri);
      if (variables !== null)
        return { entry: template, variables: variables as Record<string, string | string[]> };
    }
    return undefined;
  }

  /** The template whose URI template is exactly `uriTemplate` (a completion reference). */
  templateOf(uriTemplate: string): ResourceEntry | undefined {
    return this.templates.find((template) => template.declaration.uriTemplate === uriTemplate);
  }
}

const NO_VARIABLES: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** What `tools/list` shows for a tool without input: any object. */
const EMPTY_INPUT_SCHEMA = Object.freeze({ type: 'object', properties: Object.freeze({}) });

function toolEntry({ declaration, config }: PreparedTool): ToolEntry {
  const input = config.inputSchema;
  const output = config.outputSchema;
  // The SDK's listing: `type: "object"` first, then what the schema converts to.
  const inputJson =
    input === undefined
      ? EMPTY_INPUT_SCHEMA
      : { type: 'object', ...input['~standard'].jsonSchema.input({ target: 'draft-2020-12' }) };
  const listed: JsonObject = {
    name: declaration.name,
    ...(declaration.title !== undefined && { title: declaration.title }),
    ...(declaration.description !== undefined && { description: declaration.description }),
    inputSchema: inputJson,
    ...(declaration.annotations !== undefined && { annotations: declaration.annotations }),
    ...listedMeta(declaration),
  };
  if (output !== undefined)
    listed.outputSchema = output['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
  return {
    kind: 'tool',
    name: declaration.name,
    declaration,
    input,
    output,
    listed: deepFreeze(listed),
    headerParams: input === undefined ? [] : scanHeaderParams(inputJson),
  };
}

function promptEntry({ declaration, argsSchema }: PreparedPrompt): PromptEntry {
  const completers = new Map<string, Completer>();
  let args: JsonObject[] | undefined;
  if (argsSchema !== undefined) {
    const json = argsSchema['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    const properties = isJsonObject(json.properties) ? json.properties : {};
    const required = Array.isArray(json.required) ? json.required : [];
    args = Object.entries(properties).map(([name, property]) => ({
      name,
      ...(isJsonObject(property) &&
        typeof property.description === 'string' && { description: property.description }),
      required: required.includes(name),
    }));
    const shape = argsSchema.shape;
    if (isJsonObject(shape)) {
      for (const [name, field] of Object.entries(shape)) {
        const completer = completerOf(field);
        if (completer !== undefined) completers.set(name, completer);
      }
    }
  }
  const listed: JsonObject = {
    name: declaration.name,
    ...(declaration.title !== undefined && { title: declaration.title }),
    ...(declaration.description !== undefined && { description: declaration.description }),
    ...(args !== undefined && { arguments: args }),
    ...listedMeta(declaration),
  };
  return {
    kind: 'prompt',
    name: declaration.name,
    declaration,
    args: argsSchema,
    listed: deepFreeze(listed),
    completers,
  };
}

function resourceEntry({ declaration, metadata, subscribable }: PreparedResource): ResourceEntry {
  const extra = listedMeta(declaration);
  if (declaration.uriTemplate === undefined) {
    const uri = new URL(declaration.uri).href;
    return {
      kind: 'resource',
      name: declaration.name,
      declaration,
      uri,
      template: undefined,
      subscribable,
      metadata,
      listed: deepFreeze({ uri: declaration.uri, name: declaration.name, ...metadata, ...extra }),
    };
  }
  return {
    kind: 'resource',
    name: declaration.name,
    declaration,
    uri: undefined,
    template: new UriTemplate(declaration.uriTemplate),
    subscribable,
    metadata,
    listed: deepFreeze({
      name: declaration.name,
      uriTemplate: declaration.uriTemplate,
      ...metadata,
      ...extra,
    }),
  };
}

const COMPLETABLE = Symbol.for('mcp.completable');

/**
 * The completer of a prompt argument made completable (`completable(schema, complete)`), looking through
 * `.optional()`. The mark is the one `completable` of `@pier/core` (and of the SDK) sets.
 */
export function completerOf(field: unknown): Completer | undefined {
  let schema = field as {
    [COMPLETABLE]?: { complete?: Completer };
    type?: unknown;
    def?: { innerType?: unknown };
  } | null;
  if (
    schema !== null &&
    typeof schema === 'object' &&
    schema.type === 'optional' &&
    !(COMPLETABLE in schema)
  ) {
    schema = (schema.def?.innerType ?? schema) as typeof schema;
  }
  if (schema === null || typeof schema !== 'object') return undefined;
  const mark = schema[COMPLETABLE];
  return typeof mark?.complete === 'function' ? mark.complete : undefined;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
