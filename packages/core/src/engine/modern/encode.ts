// How a 2026-07-28 result goes out: every result carries `resultType` (`complete` unless the method may
// answer otherwise), cacheable results carry `ttlMs` and `cacheScope`, and every result names the server in
// `_meta` (`io.modelcontextprotocol/serverInfo`). The same three steps, in the same order, as the SDK's
// encoder, so that both write the same bytes.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isJsonObject, type JsonObject, Meta } from '../wire.js';

/** Methods whose results may be other than `complete` (`input_required`, a task). */
const EXTENDED = new Set(['tools/call', 'prompts/get', 'resources/read']);
/** Methods whose complete results say how long they may be cached. */
const CACHEABLE = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'server/discover',
]);

/** A result as a 2026-07-28 client receives it. */
export function encodeModern(method: string, result: JsonObject, serverInfo: JsonObject): JsonObject {
  let out: JsonObject;
  const type = result.resultType;
  if (type === undefined) {
    out = Object.assign({}, result, { resultType: 'complete' });
  } else if (type === 'complete' || EXTENDED.has(method)) {
    out = result;
  } else {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `Handler for ${method} returned resultType '${String(type)}', but results of ${method} only support 'complete' on protocol revision 2026-07-28`,
    );
  }
  if (out.resultType === 'complete' && CACHEABLE.has(method)) {
    const ttlMs = out.ttlMs;
    const cacheScope = out.cacheScope;
    out = Object.assign({}, out, {
      ttlMs: typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs >= 0 ? ttlMs : 0,
      cacheScope: cacheScope === 'public' || cacheScope === 'private' ? cacheScope : 'private',
    });
  }
  const meta = out._meta;
  if (meta === undefined) {
    if (out === result) out = Object.assign({}, out);
    out._meta = { [Meta.serverInfo]: serverInfo };
    return out;
  }
  if (!isJsonObject(meta) || meta[Meta.serverInfo] !== undefined) return out;
  return Object.assign({}, out, { _meta: Object.assign({}, meta, { [Meta.serverInfo]: serverInfo }) });
}
