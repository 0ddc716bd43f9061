import {
  SERVER_INFO_META_KEY,
  type CallToolResult,
  type Implementation,
  type InputRequiredResult,
  type Result,
} from '@modelcontextprotocol/server';
import type { RunResult } from '@toolplane/toolkit';

// What is left of the seam between the toolkit's objects and the wire once everything is on SDK
// v2: the one shape a 2025-era client cannot take as the toolkit holds it.

/** A `tools/call` result as toolrun types it. */
export type RunCallToolResult = NonNullable<RunResult['mcpResult']>;

/**
 * `result` without the server identity an upstream's 2026-07-28 answer carries in its `_meta`
 * (`io.modelcontextprotocol/serverInfo`): it names the server that answered the gateway, not the
 * gateway answering its own client. A 2026 client is told the gateway's identity instead (see
 * {@link encodeModernResult}); a 2025 client, whose era has no such key, nothing.
 */
export function withoutUpstreamServer(result: RunCallToolResult): RunCallToolResult {
  const meta = result._meta;
  if (meta === undefined || !isPlainObject(meta) || !Object.hasOwn(meta, SERVER_INFO_META_KEY)) {
    return result;
  }
  const { [SERVER_INFO_META_KEY]: _upstream, ...kept } = meta;
  const { _meta: _replaced, ...rest } = result;
  return Object.keys(kept).length === 0 ? rest : { ...rest, _meta: kept };
}

/**
 * `result` as a 2025-era `tools/call` result. Since 2026-07-28 `structuredContent` may be any
 * JSON value; before it, only an object. Any other value is left out, and told as a text block
 * when the result has no content to carry it.
 */
export function toLegacyCallToolResult(result: RunCallToolResult): CallToolResult {
  const { structuredContent, ...rest } = result;
  if (
    structuredContent === undefined ||
    (typeof structuredContent === 'object' &&
      structuredContent !== null &&
      !Array.isArray(structuredContent))
  ) {
    return result;
  }
  return rest.content.length > 0
    ? rest
    : { ...rest, content: [{ type: 'text', text: JSON.stringify(structuredContent) }] };
}

/**
 * `result` as the SDK's 2026-07-28 codec encodes a `tools/call` result for the wire: the
 * `resultType` it requires (`complete` unless the result names one, as `input_required` does),
 * and the server's identity in its `_meta` unless a `_meta` that is not an object, or one that
 * names a server already, is there. For answers the gateway writes past the SDK's dispatch
 * (`seam.test.ts` pins it to the SDK's own encoding, key for key).
 */
export function encodeModernResult(
  result: CallToolResult | InputRequiredResult,
  serverInfo: Implementation,
): Result {
  let encoded = result as Record<string, unknown>;
  // The SDK drops a `tasks` capability (gone in 2026-07-28) from a result that carries any.
  const capabilities = encoded.capabilities;
  if (isPlainObject(capabilities) && 'tasks' in capabilities) {
    const { tasks: _gone, ...kept } = capabilities;
    encoded = { ...encoded, capabilities: kept };
  }
  // One copy where the SDK makes two: an own key keeps its place, a new one goes last.
  const typed = encoded.resultType === undefined;
  const meta = encoded._meta;
  if (meta !== undefined && (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined)) {
    return typed ? copyWith(encoded, { resultType: 'complete' }) : encoded;
  }
  const served =
    meta === undefined
      ? { [SERVER_INFO_META_KEY]: serverInfo }
      : { ...meta, [SERVER_INFO_META_KEY]: serverInfo };
  return copyWith(encoded, typed ? { resultType: 'complete', _meta: served } : { _meta: served });
}

/**
 * `{ ...result, ...added }`, made by `Object.assign` onto a fresh object: the same own keys in the
 * same order, but V8 copies a spread of a handler's result into a slow dictionary-mode object
 * (about 1 µs, and its JSON text slower to make) where this keeps the fast shape. A result with
 * an own `__proto__` key is spread as before (assigning it would set the copy's prototype).
 */
function copyWith(result: Record<string, unknown>, added: Record<string, unknown>): Result {
  if (Object.hasOwn(result, '__proto__')) return { ...result, ...added };
  return Object.assign({}, result, added);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
