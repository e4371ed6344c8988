// The plain-object form: the same declarations as the decorators, for JavaScript and for plugins.
import type {
  ObjectSchema,
  PromptDeclaration,
  PromptDefinition,
  ResourceDeclaration,
  SchemaOutput,
  ToolDeclaration,
  ToolDefinition,
  ToolReturn,
} from './model.js';
import type { ServerDeclaration } from './server-declaration.js';
import {
  assertUniqueNames,
  validatePrompt,
  validateResource,
  validateServerDeclaration,
  validateTool,
} from './validate.js';

/**
 * Declares a server without decorators. Validated now, like `@MCPServer` at class definition.
 *
 * @example
 * ```js
 * const weather = defineServer({ name: 'weather', version: '1.0.0', tools: [forecast] });
 * await createServer(weather).listen();
 * ```
 */
export function defineServer(declaration: ServerDeclaration): ServerDeclaration {
  const valid = validateServerDeclaration(declaration, 'defineServer');
  assertUniqueNames(valid, 'defineServer');
  return Object.freeze(valid);
}

/**
 * Declares a tool as a plain object; its handler's arguments are typed from `input`.
 *
 * @example
 * ```ts
 * const forecast = defineTool({
 *   name: 'forecast',
 *   input: { city: z.string() },
 *   handler: async ({ city }) => `Sunny in ${city}`,
 * });
 * ```
 */
export function defineTool<
  I extends ObjectSchema | undefined = undefined,
  O extends ObjectSchema | undefined = undefined,
>(tool: ToolDefinition<I, O>): ToolDeclaration<SchemaOutput<I>, ToolReturn<O>> {
  return Object.freeze(validateTool(tool, 'defineTool')) as ToolDeclaration<SchemaOutput<I>, ToolReturn<O>>;
}

/** Declares a resource as a plain object. */
export function defineResource(resource: ResourceDeclaration): ResourceDeclaration {
  return Object.freeze(validateResource(resource, 'defineResource'));
}

/** Declares a prompt as a plain object; its handler's arguments are typed from `args`. */
export function definePrompt<A extends ObjectSchema | undefined = undefined>(
  prompt: PromptDefinition<A>,
): PromptDeclaration<SchemaOutput<A>> {
  return Object.freeze(validatePrompt(prompt, 'definePrompt')) as PromptDeclaration<SchemaOutput<A>>;
}
