// JSON Schema (2020-12 and draft-07) as TypeScript types, for the declarations a program is
// written against. A small converter of our own rather than json-schema-to-typescript: that one
// is asynchronous, formats through prettier, resolves `$ref`s with a resolver that can fetch, and
// names one top-level interface per schema, where code mode wants inline types inside one file.
// This one never fetches: a `$ref` to anything but this schema's own JSON Pointers is `unknown`.
//
// The types help a model write a correct program; they are not a validator (the runner
// validates every call). Where a keyword has no TypeScript form (patterns, bounds, `not`, …)
// the type is the wider one.

type Schema = Record<string, unknown>;

const MAX_DEPTH = 24;
// What converting one schema may cost, in characters of type text (near enough): a `$ref` met
// outside an object or array is written inline, so a few KB of references that each use the next
// several times would otherwise write 8^n characters, synchronously, on the thread that serves
// every session. Past it, what is left is `unknown`.
const BUDGET = 1_000_000;
// The cost of a node besides its literals: its keywords and punctuation.
const NODE_COST = 16;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function isRecord(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text made safe inside a JSDoc block: no comment end, one space-led line per line. */
export function docText(text: string): string[] {
  return text
    .replace(/\*\//g, '*\\/')
    .split(/\r?\n/)
    .map((line) => line.trimEnd());
}

/** A JSDoc block of `lines` (none when empty), indented by `indent`. */
export function docBlock(lines: readonly string[], indent: string): string {
  const kept = lines.filter((line, i) => line !== '' || (i > 0 && i < lines.length - 1));
  if (kept.length === 0) return '';
  if (kept.length === 1) return `${indent}/** ${kept[0] ?? ''} */\n`;
  return `${indent}/**\n${kept.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}

/** A property key as TypeScript writes it: bare when an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** A JSON value as a TypeScript literal type. */
function literal(value: unknown, depth: number): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') {
    return typeof value === 'number' && !Number.isFinite(value) ? 'number' : String(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (depth > MAX_DEPTH) return 'unknown';
  if (Array.isArray(value)) return `[${value.map((item) => literal(item, depth + 1)).join(', ')}]`;
  if (isRecord(value)) {
    const fields = Object.entries(value).map(
      ([key, item]) => `${propertyKey(key)}: ${literal(item, depth + 1)}`,
    );
    return fields.length === 0 ? 'Record<string, never>' : `{ ${fields.join('; ')} }`;
  }
  return 'unknown';
}

function union(types: readonly string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  const kept = unique.filter((type) => type !== 'never');
  if (kept.length === 0) return 'never';
  return kept.length === 1 ? (kept[0] as string) : kept.map(wrap).join(' | ');
}

function intersection(types: readonly string[]): string {
  const kept = [...new Set(types)].filter((type) => type !== 'unknown');
  if (kept.includes('never')) return 'never';
  if (kept.length === 0) return 'unknown';
  return kept.length === 1 ? (kept[0] as string) : kept.map(wrap).join(' & ');
}

/** Parenthesised when it is a union, intersection or function type, to sit inside another. */
function wrap(type: string): string {
  let depth = 0;
  for (const char of type) {
    if (char === '{' || char === '[' || char === '(' || char === '<') depth++;
    else if (char === '}' || char === ']' || char === ')' || char === '>') depth--;
    else if (depth === 0 && (char === '|' || char === '&')) return `(${type})`;
  }
  return type;
}

/** JSON Pointer `#/a/b~1c` into `root`, or undefined when it points nowhere. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      // A malformed escape (`%E0%A4%A`) points nowhere.
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

/**
 * Converts the schemas of one declaration file. Each `$ref` target becomes a named type alias
 * (`prefix` + a number), written out by {@link SchemaConverter.aliases}; a reference met where
 * TypeScript would resolve it at once (not inside an object or array) is written inline instead,
 * so no alias ever refers to itself directly.
 */
export class SchemaConverter {
  private readonly names = new Map<unknown, Map<string, string>>();
  private readonly queue: { root: unknown; ref: string; name: string }[] = [];
  private readonly written: string[] = [];
  private count = 0;
  /** What the schema being converted has cost so far (see {@link BUDGET}). */
  private spent = 0;

  constructor(private readonly prefix: string) {}

  /** The type of `schema` (a tool's input or output schema; also the root its `$ref`s point into). */
  typeOf(schema: unknown, indent = ''): string {
    this.spent = 0;
    return this.convert(schema, schema, indent, 0, new Set(), false);
  }

  /** `literal(value)`, counted against the budget. */
  private literal(value: unknown): string {
    const text = literal(value, 0);
    this.spent += text.length;
    return text;
  }

  /** `type Name = ...;` for every alias the converted schemas referred to. */
  aliases(): string {
    for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
      const target = resolvePointer(next.root, next.ref);
      this.spent = 0;
      const body = this.convert(target, next.root, '', 0, new Set([next.ref]), false);
      this.written.push(`type ${next.name} = ${body};\n`);
    }
    return this.written.join('');
  }

  private aliasFor(root: unknown, ref: string): string {
    let byRef = this.names.get(root);
    if (byRef === undefined) {
      byRef = new Map();
      this.names.set(root, byRef);
    }
    let name = byRef.get(ref);
    if (name === undefined) {
      name = `${this.prefix}${String(++this.count)}`;
      byRef.set(ref, name);
      this.queue.push({ root, ref, name });
    }
    return name;
  }

  private convert(
    schema: unknown,
    root: unknown,
    indent: string,
    depth: number,
    inline: ReadonlySet<string>,
    deferred: boolean,
  ): string {
    if (schema === true || schema === undefined) return 'unknown';
    if (schema === false) return 'never';
    if (!isRecord(schema) || depth > MAX_DEPTH) return 'unknown';
    this.spent += NODE_COST;
    if (this.spent > BUDGET) return 'unknown';
    const parts: string[] = [];
    const ref = schema.$ref;
    if (typeof ref === 'string') {
      if (resolvePointer(root, ref) === undefined) parts.push('unknown');
      else if (deferred) parts.push(this.aliasFor(root, ref));
      else if (inline.has(ref)) parts.push('unknown');
      else {
        const target = resolvePointer(root, ref);
        parts.push(this.convert(target, root, indent, depth + 1, new Set([...inline, ref]), false));
      }
    }
    const sub = (node: unknown): string =>
      this.convert(node, root, indent, depth + 1, inline, deferred);
    if (Object.hasOwn(schema, 'const')) parts.push(this.literal(schema.const));
    if (Array.isArray(schema.enum))
      parts.push(union(schema.enum.map((value) => this.literal(value))));
    const own = this.ownType(schema, root, indent, depth, inline);
    if (own !== undefined) parts.push(own);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options = schema[key];
      if (Array.isArray(options) && options.length > 0) parts.push(union(options.map(sub)));
    }
    const all = schema.allOf;
    if (Array.isArray(all)) parts.push(...all.map(sub));
    const type = intersection(parts);
    return schema.nullable === true && type !== 'unknown' ? union([type, 'null']) : type;
  }

  /** The type `type` (or, without it, the object or array keywords) describes. */
  private ownType(
    schema: Schema,
    root: unknown,
    indent: string,
    depth: number,
    inline: ReadonlySet<string>,
  ): string | undefined {
    const declared = schema.type;
    let kinds: string[];
    if (typeof declared === 'string') kinds = [declared];
    else if (Array.isArray(declared))
      kinds = declared.filter((k): k is string => typeof k === 'string');
    else if (
      isRecord(schema.properties) ||
      Array.isArray(schema.required) ||
      schema.additionalProperties !== undefined
    ) {
      kinds = ['object'];
    } else if (schema.items !== undefined || Array.isArray(schema.prefixItems)) kinds = ['array'];
    else return undefined;
    return union(
      kinds.map((kind) => {
        switch (kind) {
          case 'string':
            return 'string';
          case 'number':
          case 'integer':
            return 'number';
          case 'boolean':
            return 'boolean';
          case 'null':
            return 'null';
          case 'array':
            return this.arrayType(schema, root, indent, depth, inline);
          case 'object':
            return this.objectType(schema, root, indent, depth, inline);
          default:
            return 'unknown';
        }
      }),
    );
  }

  private arrayType(
    schema: Schema,
    root: unknown,
    indent: string,
    depth: number,
    inline: ReadonlySet<string>,
  ): string {
    const sub = (node: unknown): string =>
      this.convert(node, root, indent, depth + 1, inline, true);
    // draft-07 writes a tuple as `items: [...]` with `additionalItems`; 2020-12 as `prefixItems`.
    const prefix = Array.isArray(schema.prefixItems)
      ? (schema.prefixItems as unknown[])
      : Array.isArray(schema.items)
        ? (schema.items as unknown[])
        : undefined;
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    if (prefix === undefined) return `${wrap(sub(rest))}[]`;
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const elements = prefix.map((item, i) => `${wrap(sub(item))}${i < minItems ? '' : '?'}`);
    if (rest !== false) elements.push(`...${wrap(sub(rest))}[]`);
    return `[${elements.join(', ')}]`;
  }

  private objectType(
    schema: Schema,
    root: unknown,
    indent: string,
    depth: number,
    inline: ReadonlySet<string>,
  ): string {
    const inner = `${indent}  `;
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const required = new Set(
      Array.isArray(schema.required)
        ? schema.required.filter((k): k is string => typeof k === 'string')
        : [],
    );
    const lines: string[] = [];
    for (const [name, property] of Object.entries(properties)) {
      const type = this.convert(property, root, inner, depth + 1, inline, true);
      const description =
        isRecord(property) && typeof property.description === 'string' ? property.description : '';
      lines.push(
        `${docBlock(docText(description), inner)}${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${type};\n`,
      );
    }
    for (const name of required) {
      if (!Object.hasOwn(properties, name)) lines.push(`${inner}${propertyKey(name)}: unknown;\n`);
    }
    const extra = schema.additionalProperties;
    const open = extra !== false || isRecord(schema.patternProperties);
    if (open) {
      // With named properties beside it, an index signature must admit all of their types too.
      const value =
        lines.length === 0 && isRecord(extra) && !isRecord(schema.patternProperties)
          ? this.convert(extra, root, inner, depth + 1, inline, true)
          : 'unknown';
      lines.push(`${inner}[key: string]: ${value};\n`);
    }
    if (lines.length === 0) return 'Record<string, never>';
    return `{\n${lines.join('')}${indent}}`;
  }
}
