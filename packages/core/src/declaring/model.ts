// The declaration model: what a server, its tools, resources and prompts are, independent of how
// they were declared (decorators or plain objects) and of the SDK that serves them.
import type {
  Annotations,
  CallToolResult,
  GetPromptResult,
  PromptMessage,
  ReadResourceResult,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { PromptContext, RequestContext, ResourceContext, ToolContext } from '../context/types.js';
import type { ResourceMeta, ToolMeta } from '../extensions/apps.js';
import type { Icon, Meta } from './meta.js';

/** A zod object shape, such as `{ city: z.string() }`. */
export type ZodShape = Readonly<Record<string, z.ZodType>>;

/**
 * A raw JSON Schema of an object (2020-12 unless its `$schema` says otherwise), served as written:
 * any keyword (`$defs`, `$ref`, `allOf`, `if`/`then`/`else`, `x-mcp-header`…) reaches clients unchanged.
 */
export interface JsonObjectSchema {
  readonly type: 'object';
  readonly [keyword: string]: unknown;
}

declare const describes: unique symbol;

/** A {@link JsonObjectSchema} that says which value it describes, as {@link jsonSchema} returns it. */
export type JsonSchema<T extends Record<string, unknown> = Record<string, unknown>> = JsonObjectSchema & {
  /** Type-only: never present at run time. */
  readonly [describes]: T;
};

/**
 * Tool input, tool output or prompt arguments: a zod shape, a zod schema of an object, or a raw JSON
 * Schema of an object ({@link JsonObjectSchema}, typed with {@link jsonSchema}).
 */
export type ObjectSchema = ZodShape | z.ZodType<Record<string, unknown>> | JsonObjectSchema;

/** The parsed value of an {@link ObjectSchema}: what a method receives (`{}` without a schema). */
export type SchemaOutput<S> = S extends z.ZodType
  ? z.output<S>
  : S extends JsonObjectSchema
    ? JsonSchemaValue<S>
    : S extends ZodShape
      ? z.output<z.ZodObject<S>>
      : Record<never, never>;

/** The value an {@link ObjectSchema} accepts before parsing: what a tool with an output schema returns. */
export type SchemaInput<S> = S extends z.ZodType
  ? z.input<S>
  : S extends JsonObjectSchema
    ? JsonSchemaValue<S>
    : S extends ZodShape
      ? z.input<z.ZodObject<S>>
      : Record<never, never>;

/** What a raw JSON Schema describes: its declared type, or any object when it declares none. */
type JsonSchemaValue<S> = S extends { readonly [describes]: infer T } ? T : Record<string, unknown>;

type MaybePromise<T> = T | Promise<T>;

/**
 * What a tool method may return. Without an output schema: a string (text content), a plain object
 * (structured content plus its JSON as text), a full `CallToolResult` (passed through), or any other
 * JSON value (its JSON as text). With one: an object matching it, or a `CallToolResult`.
 */
export type ToolReturn<O> = [O] extends [undefined] ? unknown : MaybePromise<SchemaInput<O> | CallToolResult>;

/**
 * What a resource method may return: a string (text), bytes (`Uint8Array`, sent as a base64 blob),
 * a full `ReadResourceResult` (passed through) or another object (its JSON as text).
 */
export type ResourceReturn = MaybePromise<string | Uint8Array | ReadResourceResult | object>;

/**
 * What a prompt method may return: a string (one user message), one message, a list of messages,
 * or a full `GetPromptResult` (passed through).
 */
export type PromptReturn = MaybePromise<string | PromptMessage | readonly PromptMessage[] | GetPromptResult>;

/** Options of {@link Tool} (and of a plain tool, with `name` and `handler`). */
export interface ToolOptions<
  I extends ObjectSchema | undefined = undefined,
  O extends ObjectSchema | undefined = undefined,
> {
  /** Tool name: 1–128 of `A-Z a-z 0-9 _ - .`, not starting or ending with `-` or `.`. Default: the method name. */
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  /**
   * Arguments: a zod shape, `z.object(...)` or a JSON Schema (`jsonSchema(...)`). The method's first
   * parameter is its parsed value.
   */
  readonly input?: I;
  /** Structured result, as `input` is declared. The returned object is checked against it. */
  readonly output?: O;
  readonly annotations?: ToolAnnotations;
  /**
   * OAuth scopes a caller needs to use it, checked before the handler runs when an HTTP authenticator
   * (`@pier/plugin-auth`) is set: a caller without them gets 403 `insufficient_scope`. Ignored otherwise.
   */
  readonly scopes?: readonly string[];
  /** Whether the tool runs as a task for clients of the tasks extension; see {@link ToolTaskSupport}. */
  readonly task?: ToolTaskSupport;
  /** Icons a client may show beside it. */
  readonly icons?: readonly Icon[];
  /**
   * Metadata listed with the tool (`tools/list`): your own keys under a prefix such as `com.example/`, and
   * `ui` to link an MCP Apps view (`{ ui: { resourceUri: 'ui://notes/board' } }`).
   */
  readonly _meta?: ToolMeta;
}

/**
 * How a tool runs for a client of the `io.modelcontextprotocol/tasks` extension: `never` (default: an
 * ordinary call), `optional` (a task for clients of the extension, an ordinary call for others), or
 * `required` (a task; clients without the extension get the protocol's -32021 before the handler runs).
 */
export type ToolTaskSupport = 'never' | 'optional' | 'required';

/**
 * Suggests values for one variable of a resource template (`completion/complete`), given what the
 * user typed so far and the variables already filled in.
 */
export type CompleteVariable = (
  value: string,
  context?: { readonly arguments?: Record<string, string> },
) => string[] | Promise<string[]>;

interface ResourceFields {
  /** Default: the method name. */
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  /** Default: `text/plain` for a string, `application/json` for an object, `application/octet-stream` for bytes. */
  readonly mimeType?: string;
  readonly annotations?: Annotations;
  /**
   * The resource changes, and clients may subscribe to it (`resources/subscribe`): announce each
   * change with `notifyResourceUpdated(uri)`. Makes the server advertise `resources.subscribe`.
   */
  readonly subscribable?: boolean;
  /**
   * OAuth scopes a caller needs to use it, checked before the handler runs when an HTTP authenticator
   * (`@pier/plugin-auth`) is set: a caller without them gets 403 `insufficient_scope`. Ignored otherwise.
   */
  readonly scopes?: readonly string[];
  /** Icons a client may show beside it. */
  readonly icons?: readonly Icon[];
  /**
   * Metadata listed with the resource and set on the contents it reads as: your own keys, and for a
   * `ui://` view (MCP Apps) `ui` with its CSP, permissions, domain and border preference.
   */
  readonly _meta?: ResourceMeta;
}

/** A resource at one fixed URI. */
export interface FixedResourceOptions extends ResourceFields {
  /** The resource's URI, such as `config://app`. */
  readonly uri: string;
  readonly uriTemplate?: never;
}

/** Resources at every URI an RFC 6570 template matches; the method reads the values in `ctx.variables`. */
export interface TemplateResourceOptions extends ResourceFields {
  /** Such as `users://{id}/profile`. Listed by `resources/templates/list`. */
  readonly uriTemplate: string;
  readonly uri?: never;
  /** Completions for the template's variables, by variable name. */
  readonly complete?: Readonly<Record<string, CompleteVariable>>;
  /**
   * The resources the template serves now, listed by `resources/list` after the fixed ones. Called on
   * every `resources/list`; on a decorated class, `this` is the server's instance. A URI that the
   * template does not match is left out (and logged): `resources/read` could not serve it.
   */
  readonly list?: (ctx: RequestContext) => ListedResources | Promise<ListedResources>;
}

/**
 * One concrete resource of a template, for `resources/list`: its URI (named after the URI), or the URI
 * with what to show for it. `mimeType` defaults to the template's.
 */
export type ListedResource =
  | string
  | {
      readonly uri: string;
      readonly name?: string;
      readonly title?: string;
      readonly description?: string;
      readonly mimeType?: string;
      readonly icons?: readonly Icon[];
      readonly _meta?: Meta;
    };

/** What a template's `list` returns. */
export type ListedResources = readonly ListedResource[];

/** Options of {@link Resource} (and of a plain resource, with `handler`): a `uri` or a `uriTemplate`. */
export type ResourceOptions = FixedResourceOptions | TemplateResourceOptions;

/** Options of {@link Prompt} (and of a plain prompt, with `name` and `handler`). */
export interface PromptOptions<A extends ObjectSchema | undefined = undefined> {
  /** Default: the method name. */
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  /** Arguments: a zod shape or `z.object(...)` of string fields (MCP prompt arguments are strings). */
  readonly args?: A;
  /**
   * OAuth scopes a caller needs to use it, checked before the handler runs when an HTTP authenticator
   * (`@pier/plugin-auth`) is set: a caller without them gets 403 `insufficient_scope`. Ignored otherwise.
   */
  readonly scopes?: readonly string[];
  /** Icons a client may show beside it. */
  readonly icons?: readonly Icon[];
  /** Metadata listed with the prompt (`prompts/list`). */
  readonly _meta?: Meta;
}

/**
 * A tool as a plain object. The type parameters default to the widest handler, so any declared
 * tool is a `ToolDeclaration`; build one with {@link defineTool} to get the argument type checked.
 */
export interface ToolDeclaration<Args = never, Result = unknown> {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly input?: ObjectSchema;
  readonly output?: ObjectSchema;
  readonly annotations?: ToolAnnotations;
  /** See {@link ToolOptions.scopes}. */
  readonly scopes?: readonly string[];
  readonly task?: ToolTaskSupport;
  readonly icons?: readonly Icon[];
  readonly _meta?: ToolMeta;
  readonly handler: (args: Args, ctx: ToolContext) => Result;
}

/** A resource as a plain object, at a fixed `uri` or a `uriTemplate`; see {@link defineResource}. */
export type ResourceDeclaration = ResourceOptions & {
  readonly name: string;
  readonly handler: (uri: URL, ctx: ResourceContext) => ResourceReturn;
};

/** A prompt as a plain object; build one with {@link definePrompt} to get the argument type checked. */
export interface PromptDeclaration<Args = never> {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly args?: ObjectSchema;
  /** See {@link PromptOptions.scopes}. */
  readonly scopes?: readonly string[];
  readonly icons?: readonly Icon[];
  readonly _meta?: Meta;
  readonly handler: (args: Args, ctx: PromptContext) => PromptReturn;
}

/** A plain tool with its handler typed from its schemas. */
export type ToolDefinition<
  I extends ObjectSchema | undefined,
  O extends ObjectSchema | undefined,
> = ToolOptions<I, O> & {
  readonly name: string;
  readonly handler: (args: SchemaOutput<I>, ctx: ToolContext) => ToolReturn<O>;
};

/** A plain prompt with its handler typed from its argument schema. */
export type PromptDefinition<A extends ObjectSchema | undefined> = PromptOptions<A> & {
  readonly name: string;
  readonly handler: (args: SchemaOutput<A>, ctx: PromptContext) => PromptReturn;
};
