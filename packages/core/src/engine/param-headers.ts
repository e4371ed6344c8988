// SEP-2243 custom headers: a tool's input schema may mark primitive properties with `x-mcp-header`, and a
// client then mirrors each such argument in an `Mcp-Param-{Name}` header that intermediaries can route on.
// Over HTTP the server checks that every header it expects is there and agrees with the body.
import { decodeHeaderValue, type HeaderReader, mismatch, type Refusal } from './classify.js';
import { isJsonObject, type JsonObject } from './wire.js';

/** One `x-mcp-header` declaration: the argument's path and the header's name. */
export interface HeaderParam {
  readonly path: readonly string[];
  readonly header: string;
  readonly type: string | undefined;
}

/**
 * The `x-mcp-header` declarations of a tool's input schema, reachable through `properties` only (the
 * places the spec allows them). Declarations it does not allow are left out: such a tool's headers are
 * not checked, as conforming clients exclude it.
 */
export function scanHeaderParams(schema: JsonObject): HeaderParam[] {
  const found: HeaderParam[] = [];
  const visit = (node: unknown, path: string[]) => {
    if (!isJsonObject(node)) return;
    const header = node['x-mcp-header'];
    if (typeof header === 'string' && header !== '' && path.length > 0) {
      found.push({ path, header, type: typeof node.type === 'string' ? node.type : undefined });
    }
    const properties = node.properties;
    if (isJsonObject(properties)) {
      for (const [key, child] of Object.entries(properties)) visit(child, [...path, key]);
    }
  };
  visit(schema, []);
  return found;
}

const CANONICAL_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments: a header for each declared
 * argument the body carries (not for one that is absent or null), decoding to the same value (numbers
 * compared as numbers). Refused with 400 and `-32020`.
 */
export function paramHeaderRefusal(
  params: readonly HeaderParam[],
  args: unknown,
  headers: HeaderReader,
): Refusal | undefined {
  for (const param of params) {
    let value: unknown = args;
    for (const key of param.path) value = isJsonObject(value) ? value[key] : undefined;
    if (value === undefined || value === null) continue;
    const text = primitiveText(value);
    if (text === undefined) continue;
    const name = `Mcp-Param-${param.header}`;
    const where = param.path.join('.');
    const raw = headers(name.toLowerCase());
    if (raw === undefined) {
      return mismatch(
        name,
        `the body carries ${where}=${JSON.stringify(value)} but the ${name} header is absent`,
      );
    }
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined)
      return mismatch(name, `the ${name} header carries an invalid Base64 sentinel value`);
    const numeric = (param.type === 'integer' || param.type === 'number') && typeof value === 'number';
    const same = numeric && CANONICAL_DECIMAL.test(decoded) ? Number(decoded) === value : decoded === text;
    if (!same) {
      return mismatch(
        name,
        `the ${name} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(value)}`,
      );
    }
  }
  return undefined;
}

function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)))
      return undefined;
    return String(value);
  }
  return undefined;
}
