import { isPlainObject, pointerToken, subschemaKeywords } from '@toolplane/toolmodel';
import {
  COUNT_KEYWORDS,
  JSON_TYPES,
  ROOT_FORBIDDEN,
  SCHEMA_RULES,
  type ProviderSchemaRules,
  type SchemaTarget,
} from './schema-rules.js';

type Json = Record<string, unknown>;

// The 2020-12 keywords that apply subschemas (`items` as one schema; `$defs` is checked only
// where a `$ref` leads).
const SUBSCHEMA = subschemaKeywords(
  (k) => !k.draft07Only && (k.shape === 'schema' || k.shape === 'schema-or-array'),
);
const SUBSCHEMA_LIST = subschemaKeywords((k) => !k.draft07Only && k.shape === 'array');
const SUBSCHEMA_MAP = subschemaKeywords(
  (k) => !k.draft07Only && k.shape === 'map' && k.target !== 'none',
);
const UPPER_TYPES = new Set([...JSON_TYPES].map((type) => type.toUpperCase()));

/** What each provider accepts as a tool name. */
export const TOOL_NAME_RULES: Readonly<Record<SchemaTarget, RegExp>> = {
  'openai-strict': /^[a-zA-Z0-9_-]{1,64}$/,
  openai: /^[a-zA-Z0-9_-]{1,64}$/,
  anthropic: /^[a-zA-Z0-9_-]{1,64}$/,
  // Gemini: a letter or underscore first, then letters, digits, `_ . : -`; 64 at most.
  gemini: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/,
};

/**
 * Checks a tool schema against a provider's documented rules and returns every problem, each
 * with its JSON Pointer (none: the provider accepts it). Independent of the conversion: it reads
 * the same {@link ProviderSchemaRules} but walks the written schema, so a conversion bug shows.
 */
export function checkSchema(schema: unknown, target: SchemaTarget | ProviderSchemaRules): string[] {
  const rules = typeof target === 'string' ? SCHEMA_RULES[target] : target;
  const problems: string[] = [];
  const say = (path: string, problem: string): void => {
    problems.push(`${path === '' ? '/' : path}: ${problem}`);
  };
  if (!isPlainObject(schema)) return ['/: the schema is not an object'];
  if (schema.type !== (rules.typeCase === 'upper' ? 'OBJECT' : 'object')) {
    say('', 'the root is not an object schema');
  }
  for (const keyword of ROOT_FORBIDDEN) {
    if (schema[keyword] !== undefined) say('', `${keyword} at the root`);
  }
  let properties = 0;
  const visit = (node: unknown, path: string, depth: number): void => {
    if (typeof node === 'boolean') {
      if (rules.typeCase === 'upper' || rules.strict) say(path, 'a boolean schema');
      return;
    }
    if (!isPlainObject(node)) {
      say(path, 'a schema that is not an object');
      return;
    }
    if (rules.maxDepth !== undefined && depth > rules.maxDepth) say(path, 'nested too deep');
    for (const [key, value] of Object.entries(node)) {
      if (!rules.keywords.has(key)) {
        say(path, `keyword ${key} is not supported`);
        continue;
      }
      if (COUNT_KEYWORDS.has(key)) {
        const ok =
          rules.counts === 'string'
            ? typeof value === 'string' && /^\d+$/.test(value)
            : Number.isInteger(value);
        if (!ok)
          say(
            path,
            `${key} must be ${rules.counts === 'string' ? 'a digit string' : 'an integer'}`,
          );
      }
      if (key === 'format' && rules.formats !== undefined && !rules.formats.has(String(value))) {
        say(path, `format ${String(value)} is not supported`);
      }
      if (key === 'enum') {
        if (!Array.isArray(value) || value.length === 0) say(path, 'enum is not a non-empty array');
        else if (rules.enumValues === 'strings') {
          if (!value.every((item) => typeof item === 'string'))
            say(path, 'enum values must be strings');
          if (node.type !== 'STRING') say(path, 'an enum needs type STRING');
        }
      }
      if (key === 'required') {
        if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
          say(path, 'required is not a list of names');
        } else if (isPlainObject(node.properties)) {
          for (const name of value) {
            if (!Object.hasOwn(node.properties, name))
              say(path, `required names undeclared ${name}`);
          }
        }
      }
      if (key === 'description' && typeof value !== 'string') say(path, 'description is not text');
      if (key === 'nullable' && typeof value !== 'boolean') say(path, 'nullable is not a boolean');
    }
    const types = checkType(node, path, rules, say);
    if (rules.emptyObjects === 'json-text' && path !== '' && types?.includes('object') === true) {
      const keys = isPlainObject(node.properties) ? Object.keys(node.properties) : [];
      if (keys.length === 0) say(path, 'an OBJECT needs properties');
    }
    if (rules.typed === true) {
      if (types?.includes('array') === true && !isPlainObject(node.items))
        say(path, 'an ARRAY needs items');
      if (node.type === undefined && node.anyOf === undefined) say(path, 'a schema needs a type');
    }
    if (rules.strict) {
      if (types === undefined && node.anyOf === undefined && node.enum === undefined) {
        say(path, 'strict mode needs a type');
      }
      if (types?.includes('object') === true) {
        if (node.additionalProperties !== false)
          say(path, 'strict objects need additionalProperties: false');
        const keys = isPlainObject(node.properties) ? Object.keys(node.properties) : undefined;
        if (keys === undefined) say(path, 'strict objects need properties');
        const required = Array.isArray(node.required) ? node.required : [];
        if (
          keys !== undefined &&
          (keys.length !== required.length || !keys.every((k) => required.includes(k)))
        ) {
          say(path, 'strict objects must require every property');
        }
      }
      if (types?.includes('array') === true && node.items === undefined)
        say(path, 'strict arrays need items');
    }
    for (const [key, value] of Object.entries(node)) {
      if (SUBSCHEMA.has(key) && (isPlainObject(value) || typeof value === 'boolean')) {
        if (key === 'additionalProperties' && typeof value === 'boolean') continue;
        visit(value, `${path}/${key}`, depth + 1);
      } else if (SUBSCHEMA_LIST.has(key)) {
        if (!Array.isArray(value) || value.length === 0)
          say(path, `${key} is not a non-empty list`);
        else {
          value.forEach((sub, i) => {
            visit(sub, `${path}/${key}/${i}`, depth);
          });
        }
      } else if (SUBSCHEMA_MAP.has(key)) {
        if (!isPlainObject(value)) say(path, `${key} is not an object`);
        else {
          for (const [name, sub] of Object.entries(value)) {
            if (key === 'properties') properties++;
            visit(sub, `${path}/${key}/${pointerToken(name)}`, depth + 1);
          }
        }
      }
    }
  };
  visit(schema, '', 0);
  if (rules.maxProperties !== undefined && properties > rules.maxProperties) {
    say('', `more than ${rules.maxProperties} properties`);
  }
  return problems;
}

/** The node's types, lower-cased, with any problem in how they are written said. */
function checkType(
  node: Json,
  path: string,
  rules: ProviderSchemaRules,
  say: (path: string, problem: string) => void,
): string[] | undefined {
  const type = node.type;
  if (type === undefined) return undefined;
  if (rules.typeCase === 'upper') {
    if (typeof type !== 'string' || !UPPER_TYPES.has(type)) {
      say(path, `type ${JSON.stringify(type)} is not one of Gemini's types`);
      return undefined;
    }
    return [type.toLowerCase()];
  }
  const list = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  if (
    list === undefined ||
    list.length === 0 ||
    !list.every((t) => typeof t === 'string' && JSON_TYPES.has(t))
  ) {
    say(path, `type ${JSON.stringify(type)} is not a JSON Schema type`);
    return undefined;
  }
  if (new Set(list).size !== list.length) say(path, 'type lists a type twice');
  return list as string[];
}

/** Whether `name` is a tool name `target` accepts. */
export function checkToolName(name: string, target: SchemaTarget): boolean {
  return TOOL_NAME_RULES[target].test(name);
}
