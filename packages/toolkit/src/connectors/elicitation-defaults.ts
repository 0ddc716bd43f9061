import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';

/** One field of an accepted form: what an elicitation answer may carry. */
type FieldValue = NonNullable<ElicitResult['content']>[string];

/**
 * The answer with the server's defaults filled in for every field it left out (SEP-1034): for an
 * accepted form-mode request, each property of `requestedSchema` that has a `default` and no value
 * in the answer gets the default (an accept without `content` counts as an empty form). Other
 * answers come back as they are; so does a default that is no field value (string, number,
 * boolean or list of strings), as the server could not accept it back.
 */
export function withElicitationDefaults(
  request: ElicitRequest,
  result: ElicitResult,
): ElicitResult {
  if (result.action !== 'accept') return result;
  const { params } = request;
  if (params.mode === 'url' || !('requestedSchema' in params)) return result;
  const properties: Readonly<Record<string, unknown>> = params.requestedSchema.properties;
  const given = result.content ?? {};
  const missing: [string, FieldValue][] = [];
  for (const [name, schema] of Object.entries(properties)) {
    if (Object.hasOwn(given, name) && given[name] !== undefined) continue;
    const value = defaultOf(schema);
    if (value !== undefined) missing.push([name, value]);
  }
  if (missing.length === 0) return result;
  // fromEntries defines own properties, so a field named "__proto__" stays a field.
  return { ...result, content: Object.fromEntries([...Object.entries(given), ...missing]) };
}

function defaultOf(schema: unknown): FieldValue | undefined {
  if (typeof schema !== 'object' || schema === null || !Object.hasOwn(schema, 'default')) {
    return undefined;
  }
  const value = (schema as { default: unknown }).default;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return [...value];
  }
  return undefined;
}
