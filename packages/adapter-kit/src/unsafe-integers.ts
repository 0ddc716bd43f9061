import { isPlainObject, ToolError } from '@toolplane/toolmodel';

// A model writes a tool call's arguments as JSON text; the provider SDKs of most frameworks
// (Anthropic's and Gemini's replies, the AI SDK, LangChain) parse that text before an adapter
// sees it, and `JSON.parse` reads an integer past 2^53 - 1 as a nearby one: a Discord or
// Snowflake ID of 19 digits reaches the tool as another record's. Once parsed, the digits the
// model wrote are gone; what is left to go by is the schema. Where it asks for an integer, a
// number past 2^53 - 1 is refused instead of passed on, possibly rounded. Where it asks for a
// number, such a value is as likely a large float (6.02e23) and is passed on.

/** How deep arguments are walked; deeper values are the runner's to refuse. */
const MAX_DEPTH = 64;

/**
 * The `invalid_argument` error naming the first integer of `args` past 2^53 - 1 where
 * `inputSchema` asks for an integer (such a number may already have been rounded by the SDK that
 * parsed the model's reply), or `undefined` when there is none.
 */
export function unsafeIntegerRefusal(
  toolId: string,
  args: Record<string, unknown>,
  inputSchema: unknown,
): ToolError | undefined {
  const path: string[] = [];
  const found = unsafeIntegerIn(args, inputSchema, path, 0);
  if (found === undefined) return undefined;
  // Built only now, from the keys gathered on the way back out: most calls have none to name.
  const pointer =
    path.length === 0
      ? '/'
      : path
          .reverse()
          .map((key) => `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`)
          .join('');
  return new ToolError(
    'invalid_argument',
    `the integer ${String(found)} at ${pointer} is past 2^53 - 1, where a number may already have been rounded from what the model wrote (the SDK that read its reply parsed the JSON), so the tool was not run; give the tool such values as strings, or use an adapter path that reads the arguments' text itself (OpenAI's, Anthropic's streamed replies)`,
    { toolId },
  );
}

/**
 * The first integer of `value` past 2^53 - 1 where `schema` asks for an integer, its keys pushed
 * onto `path` innermost first; `undefined` when there is none.
 */
function unsafeIntegerIn(
  value: unknown,
  schema: unknown,
  path: string[],
  depth: number,
): number | undefined {
  if (!isPlainObject(schema) || depth > MAX_DEPTH) return undefined;
  if (typeof value === 'number') {
    return Number.isInteger(value) && !Number.isSafeInteger(value) && asksForInteger(schema)
      ? value
      : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    const { items, prefixItems } = schema;
    for (let at = 0; at < value.length; at++) {
      const itemSchema: unknown =
        Array.isArray(prefixItems) && at < prefixItems.length
          ? (prefixItems[at] as unknown)
          : items;
      const found = unsafeIntegerIn(value[at], itemSchema, path, depth + 1);
      if (found !== undefined) {
        path.push(String(at));
        return found;
      }
    }
    return undefined;
  }
  const properties = isPlainObject(schema.properties) ? schema.properties : undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const propertySchema =
      properties !== undefined && Object.hasOwn(properties, key)
        ? properties[key]
        : schema.additionalProperties;
    const found = unsafeIntegerIn(record[key], propertySchema, path, depth + 1);
    if (found !== undefined) {
      path.push(key);
      return found;
    }
  }
  return undefined;
}

/** Whether `schema`, or one of its `anyOf`/`oneOf`/`allOf` branches, is of type `integer`. */
function asksForInteger(schema: Record<string, unknown>): boolean {
  if (isIntegerType(schema.type)) return true;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some((b) => isPlainObject(b) && isIntegerType(b.type)))
      return true;
  }
  return false;
}

function isIntegerType(type: unknown): boolean {
  return type === 'integer' || (Array.isArray(type) && type.includes('integer'));
}
