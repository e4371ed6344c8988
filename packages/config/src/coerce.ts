import { type ConfigIssue, type IssueContext, optionIssue, show } from './issues.js';

/** The outcome of turning text from argv or the environment into a schema's input. */
export type Coerced =
  | { readonly ok: true; readonly value: unknown; readonly warning?: ConfigIssue }
  | { readonly ok: false; readonly issue: ConfigIssue };

/** Where a raw value was read: the two channels have different boolean rules. */
export type Channel = 'env' | 'argv';

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;
// Texts that plainly mean false: reading them as false needs no warning.
const FALSE_WORDS = new Set(['false', '0', 'no', 'n', 'off', 'disable', 'disabled']);

/**
 * Turns raw text (or `true`/`false` from a bare or negated flag) into the input the schema expects.
 * Strict on purpose: `Number('')` is 0 and `Number('0x10')` is 16, which is never what a user meant.
 */
export function coerce(raw: string | boolean, channel: Channel, context: IssueContext): Coerced {
  const { kind } = context.info;
  if (typeof raw === 'boolean') {
    if (kind === 'boolean') return { ok: true, value: raw };
    if (kind === 'boolean-text') return { ok: true, value: String(raw) };
    const flag = context.source;
    const message = `missing value; write ${flag} <value> or ${flag}=<value>`;
    return { ok: false, issue: optionIssue(context, 'missing_value', message) };
  }
  const got = context.secret ? '' : `, got ${show(raw)}`;
  switch (kind) {
    case 'boolean':
      return channel === 'env' ? envBoolean(raw, context) : argvBoolean(raw, context, got);
    case 'integer':
      return integer(raw, context, got);
    case 'number': {
      const value = Number(raw);
      if (DECIMAL.test(raw) && Number.isFinite(value)) return { ok: true, value };
      return { ok: false, issue: optionIssue(context, 'invalid_number', `expected a decimal number${got}`) };
    }
    default:
      return { ok: true, value: matchValue(raw, context.info.values) };
  }
}

function integer(raw: string, context: IssueContext, got: string): Coerced {
  if (!INTEGER.test(raw)) {
    return { ok: false, issue: optionIssue(context, 'invalid_integer', `expected an integer${got}`) };
  }
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) {
    const range = `between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`;
    return {
      ok: false,
      issue: optionIssue(context, 'invalid_integer', `expected an integer ${range}${got}`),
    };
  }
  // `-0` is not a value anyone means to configure.
  return { ok: true, value: value === 0 ? 0 : value };
}

/** On the command line only `true` and `false` are booleans; anything else is a mistake worth stopping for. */
function argvBoolean(raw: string, context: IssueContext, got: string): Coerced {
  if (raw === 'true' || raw === 'false') return { ok: true, value: raw === 'true' };
  return { ok: false, issue: optionIssue(context, 'invalid_boolean', `expected true or false${got}`) };
}

/**
 * A variable is true only for the exact text `true` (the convention MCP clients follow). Other text
 * is false; text that was probably meant as true (`1`, `yes`, `TRUE`, `on`…) earns a warning.
 */
function envBoolean(raw: string, context: IssueContext): Coerced {
  if (raw === 'true') return { ok: true, value: true };
  if (FALSE_WORDS.has(raw.trim().toLowerCase())) return { ok: true, value: false };
  const value = context.secret ? 'the value' : show(raw);
  const warning: ConfigIssue = {
    ...optionIssue(context, 'ambiguous_boolean', ''),
    severity: 'warning',
    message: `${value} is read as false; only the exact text true turns it on`,
  };
  return { ok: true, value: false, warning };
}

/** Enum and literal values that are not text (numbers, booleans) are matched by their text. */
function matchValue(raw: string, values: readonly unknown[] | undefined): unknown {
  if (values === undefined || values.includes(raw)) return raw;
  const match = values.find((value) => typeof value !== 'string' && String(value) === raw);
  return match === undefined ? raw : match;
}
