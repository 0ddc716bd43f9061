import { ToolError } from './errors.js';
import { isPlainObject } from './guards.js';
import { schemaRegExp } from './linear-pattern.js';
import { subschemaKeywords } from './schema-keywords.js';

type SchemaObject = Record<string, unknown>;

// Only keywords that hold subschemas are walked (both dialects', `items` as one or an array): a
// `$ref` under an unknown keyword is never evaluated, so it cannot break a schema.
const ONE = subschemaKeywords(({ shape }) => shape === 'schema' || shape === 'schema-or-array');
const MANY = subschemaKeywords(({ shape }) => shape === 'array' || shape === 'schema-or-array');
const MAP = subschemaKeywords(({ shape }) => shape === 'map');

/** What {@link walkSchema} found out about a schema. */
export interface SchemaWalk {
  /** Every subschema (the root included) that carries a `$ref`. */
  readonly refs: readonly SchemaObject[];
}

/** Options for {@link walkSchema}. */
export interface WalkSchemaOptions {
  /** Replaces each nested boolean `false` subschema with what this returns. */
  readonly replaceFalse?: () => SchemaObject;
}

// Defined, not assigned: a subschema keyed "__proto__" must stay an own property.
function put(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

function checkPattern(pattern: unknown, where: string): void {
  if (typeof pattern !== 'string') {
    throw new ToolError('invalid_schema', `${where} must be a string, got ${typeof pattern}`);
  }
  schemaRegExp(pattern, where);
}

/**
 * Walks every subschema of `root` without recursion (so any depth terminates), checks that
 * `pattern` and `patternProperties` hold valid regular expressions, collects the subschemas
 * that carry a `$ref`, and optionally replaces nested `false` schemas in place.
 *
 * @throws {ToolError} `invalid_schema` for a pattern that is not a valid regular expression.
 */
export function walkSchema(root: SchemaObject, options: WalkSchemaOptions = {}): SchemaWalk {
  const { replaceFalse } = options;
  const refs: SchemaObject[] = [];
  const seen = new Set<SchemaObject>();
  const stack: SchemaObject[] = [root];
  const visit = (holder: object, key: string | number, child: unknown): void => {
    if (child === false && replaceFalse !== undefined) put(holder, key, replaceFalse());
    else if (isPlainObject(child) && !seen.has(child)) stack.push(child);
  };
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    seen.add(node);
    if (Object.hasOwn(node, '$ref')) refs.push(node);
    if (Object.hasOwn(node, 'pattern')) checkPattern(node.pattern, 'pattern');
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (Array.isArray(value)) {
        if (MANY.has(key)) {
          value.forEach((child, index) => {
            visit(value, index, child);
          });
        }
      } else if (MAP.has(key)) {
        if (!isPlainObject(value)) continue;
        for (const name of Object.keys(value)) {
          if (key === 'patternProperties') checkPattern(name, 'patternProperties key');
          visit(value, name, value[name]);
        }
      } else if (ONE.has(key)) {
        visit(node, key, value);
      }
    }
  }
  return { refs };
}
