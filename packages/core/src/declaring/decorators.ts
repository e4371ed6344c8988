// Decorators only record declarations. They accept both calling conventions: TC39 standard
// decorators `(value, context)` and legacy `experimentalDecorators` ones `(target, key, descriptor)`.
// `context.metadata` is not used: tsc leaves it undefined on Node 20 (no `Symbol.metadata`).

import type { PromptContext, ResourceContext, ToolContext } from '../context/types.js';
import { PierError } from '../errors.js';
import type {
  ObjectSchema,
  PromptDeclaration,
  PromptOptions,
  PromptReturn,
  ResourceDeclaration,
  ResourceOptions,
  ResourceReturn,
  SchemaOutput,
  ToolDeclaration,
  ToolOptions,
  ToolReturn,
} from './model.js';
import type { MCPServerOptions, ServerDeclaration } from './server-declaration.js';
import {
  assertUniqueNames,
  validatePrompt,
  validateResource,
  validateServerOptions,
  validateTool,
} from './validate.js';

/** A class decorator usable under both decorator conventions. */
export interface ServerClassDecorator {
  <C extends abstract new (...args: never[]) => object>(value: C, context: ClassDecoratorContext<C>): void;
  <C extends abstract new (...args: never[]) => object>(target: C): void;
}

// biome-ignore lint/suspicious/noExplicitAny: the same bound TypeScript puts on ClassMethodDecoratorContext
type AnyMethod = (...args: any) => any;

/** A method decorator usable under both conventions; it checks the method's type against `Method`. */
export interface MemberDecorator<Method extends AnyMethod> {
  <This, M extends Method>(value: M, context: ClassMethodDecoratorContext<This, M>): void;
  <M extends Method>(
    target: object,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): void;
}

type Kind = 'tool' | 'resource' | 'prompt';
interface MemberRecord {
  readonly kind: Kind;
  readonly options: object;
}

const DECORATOR: Record<Kind, string> = { tool: '@Tool', resource: '@Resource', prompt: '@Prompt' };

// Keyed by the decorated function: both conventions hand it over, and the class decorator (which
// runs after the member decorators in both) finds it again on the prototype.
const byFunction = new WeakMap<Function, MemberRecord[]>();
// Legacy decorators also say where the method lives, which survives a later decorator replacing it.
const byPrototype = new WeakMap<object, Map<string | symbol, MemberRecord[]>>();
const servers = new WeakMap<Function, ServerDeclaration>();

/**
 * Declares a class as an MCP server. Validated when the class is defined: a missing or empty
 * `name`, a `version` that is not dotted numbers, a bad tool/resource/prompt or two with one name
 * throws a {@link PierError} naming the class and the field.
 *
 * @example
 * ```ts
 * @MCPServer({ name: 'weather', version: '1.0.0' })
 * class WeatherServer { … }
 * ```
 */
export function MCPServer(options: MCPServerOptions): ServerClassDecorator {
  return ((...args: unknown[]) => {
    const [target, context] = args;
    if (typeof target !== 'function') {
      throw new PierError('DECLARATION_INVALID', '@MCPServer can only decorate a class');
    }
    if (context !== undefined && (!isDecoratorContext(context) || context.kind !== 'class')) {
      throw new PierError('DECLARATION_INVALID', '@MCPServer can only decorate a class');
    }
    servers.set(target, declareClass(target, options));
  }) as ServerClassDecorator;
}

/**
 * Declares a method as a tool. `input` types the method's first parameter (checked by the
 * compiler); the second is a {@link ToolContext}.
 *
 * @example
 * ```ts
 * @Tool({ description: 'Forecast for a city', input: { city: z.string() } })
 * async forecast({ city }: { city: string }) { return `Sunny in ${city}`; }
 * ```
 */
export function Tool<
  I extends ObjectSchema | undefined = undefined,
  O extends ObjectSchema | undefined = undefined,
>(options?: ToolOptions<I, O>): MemberDecorator<(args: SchemaOutput<I>, ctx: ToolContext) => ToolReturn<O>> {
  return member('tool', options ?? {});
}

/**
 * Declares a method as a resource at a fixed `uri`. The method receives the URI and a
 * {@link ResourceContext}.
 *
 * @example
 * ```ts
 * @Resource({ uri: 'config://app', description: 'Current settings' })
 * settings() { return { units: 'metric' }; }
 * ```
 */
export function Resource(
  options: ResourceOptions,
): MemberDecorator<(uri: URL, ctx: ResourceContext) => ResourceReturn> {
  return member('resource', options);
}

/**
 * Declares a method as a prompt. `args` types the method's first parameter.
 *
 * @example
 * ```ts
 * @Prompt({ description: 'Plan a trip', args: { city: z.string() } })
 * plan({ city }: { city: string }) { return `Plan a day in ${city}.`; }
 * ```
 */
export function Prompt<A extends ObjectSchema | undefined = undefined>(
  options?: PromptOptions<A>,
): MemberDecorator<(args: SchemaOutput<A>, ctx: PromptContext) => PromptReturn> {
  return member('prompt', options ?? {});
}

/** The declaration `@MCPServer` recorded for `target`, if any. */
export function classDeclaration(target: Function): ServerDeclaration | undefined {
  return servers.get(target);
}

function member<M extends AnyMethod>(kind: Kind, options: object): MemberDecorator<M> {
  const name = DECORATOR[kind];
  return ((...args: unknown[]) => {
    const [target, second, descriptor] = args;
    const record: MemberRecord = { kind, options };
    if (isDecoratorContext(second)) {
      if (second.kind !== 'method') throw misuse(name, `a ${second.kind}`);
      if (second.static) throw misuse(name, `static method ${String(second.name)}`);
      if (second.private) throw misuse(name, `private method ${String(second.name)}`);
      push(byFunction, target as Function, record);
      return;
    }
    if (typeof second === 'string' || typeof second === 'symbol') {
      if (typeof target === 'function') throw misuse(name, `static method ${String(second)}`);
      const value = (descriptor as PropertyDescriptor | undefined)?.value;
      if (typeof value !== 'function') throw misuse(name, `${String(second)}, which is not a method`);
      push(byFunction, value, record);
      const members = byPrototype.get(target as object) ?? new Map<string | symbol, MemberRecord[]>();
      byPrototype.set(target as object, members);
      members.set(second, [...(members.get(second) ?? []), record]);
      return;
    }
    throw misuse(name, 'something that is not a class method');
  }) as MemberDecorator<M>;
}

function declareClass(target: Function, options: MCPServerOptions): ServerDeclaration {
  const where = `@MCPServer on class ${target.name || '(anonymous)'}`;
  const info = validateServerOptions(options, where);
  const tools: ToolDeclaration[] = [];
  const resources: ResourceDeclaration[] = [];
  const prompts: PromptDeclaration[] = [];
  const seen = new Set<string | symbol>(['constructor']);
  for (
    let proto = target.prototype;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const key of Reflect.ownKeys(proto)) {
      if (seen.has(key)) continue; // overridden further down the chain
      seen.add(key);
      const method = Object.getOwnPropertyDescriptor(proto, key)?.value;
      if (typeof method !== 'function') continue;
      const records = byPrototype.get(proto)?.get(key) ?? byFunction.get(method) ?? [];
      for (const { kind, options: memberOptions } of records) {
        const memberWhere = `${DECORATOR[kind]} on ${target.name || '(anonymous)'}.${String(key)}`;
        const named = { ...memberOptions } as { name?: unknown };
        if (named.name === undefined) {
          if (typeof key === 'symbol') {
            throw new PierError(
              'DECLARATION_INVALID',
              `${memberWhere}: "name" is required on a symbol-keyed method`,
            );
          }
          named.name = key;
        }
        const declared = { ...named, handler: method };
        if (kind === 'tool') tools.push(validateTool(declared, memberWhere));
        else if (kind === 'resource') resources.push(validateResource(declared, memberWhere));
        else prompts.push(validatePrompt(declared, memberWhere));
      }
    }
  }
  const declaration: ServerDeclaration = { ...info, tools, resources, prompts };
  assertUniqueNames(declaration, `class ${target.name || '(anonymous)'}`);
  return declaration;
}

function isDecoratorContext(value: unknown): value is DecoratorContext {
  return (
    typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string'
  );
}

function misuse(decorator: string, what: string): PierError {
  return new PierError(
    'DECLARATION_INVALID',
    `${decorator} can only decorate an instance method, not ${what}`,
  );
}

function push<K extends object, V>(map: WeakMap<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
