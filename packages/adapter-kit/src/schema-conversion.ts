import {
  isPlainObject,
  pointerToken,
  subschemaKeywords,
  type SubschemaKeyword,
} from '@toolplane/toolmodel';
import {
  COUNT_KEYWORDS,
  SCHEMA_RULES,
  type ProviderSchemaRules,
  type SchemaTarget,
} from './schema-rules.js';
import {
  acceptsNull,
  clip,
  DROPPED,
  EXPANDED,
  JSON_TEXT,
  jsonType,
  nullable,
  put,
  restore,
  ROOT_TEXT,
  takesFreeFormKeys,
  typesOf,
  unite,
  type Json,
  type Plan,
  clashOf,
  unwrapRoot,
  allowsNothing,
  mostItems,
  typedEnum,
  asPrefixItems,
} from './schema-parts.js';
import { Inlining, NotStrict } from './schema-inlining.js';

/** What {@link convertSchema} made of a tool's input schema for one provider. */
export interface ConvertedSchema {
  /** The schema to send: an object schema in the target's dialect. */
  readonly schema: Record<string, unknown>;
  /** The rules used: the target asked for, or its fallback when strict mode was impossible. */
  readonly target: SchemaTarget;
  /** Whether the schema is written for strict mode (OpenAI's `strict: true`). */
  readonly strict: boolean;
  /** Why strict mode was asked for and not possible; the first obstacle met. */
  readonly reason?: string;
  /**
   * What the target could not express, one line each with its JSON Pointer: keywords moved
   * into the description, `oneOf` read as `anyOf`, recursion cut, ...
   */
  readonly notes: readonly string[];
  /**
   * Undoes strict mode's change on a model's arguments: an optional property made nullable and
   * sent as `null` is removed again, so the tool sees the arguments its own schema describes.
   */
  readonly restore: (args: Record<string, unknown>) => Record<string, unknown>;
}

// The 2020-12 keywords that hold subschemas, but those converted on their own (`items`,
// `additionalProperties`, `anyOf`, `properties`) and definitions (reached through `$ref`).
const OWN_WAY = new Set(['items', 'additionalProperties', 'anyOf', 'properties']);
const converted = (test: (k: SubschemaKeyword) => boolean) =>
  subschemaKeywords(
    (k) => !k.draft07Only && k.target !== 'none' && !OWN_WAY.has(k.name) && test(k),
  );
const ONE_SCHEMA = converted(({ shape }) => shape === 'schema');
const SCHEMA_LIST = converted(({ shape }) => shape === 'array');
const SCHEMA_MAP = converted(({ shape }) => shape === 'map');

/**
 * Converts a tool's input schema (JSON Schema 2020-12 or draft-07) for one provider, driven by
 * that provider's {@link ProviderSchemaRules}: local `$ref`s are inlined (a cycle is cut with a
 * note, never followed forever), `allOf` merged, types written in the target's form, keywords it
 * lacks moved into the description, and in strict mode every object closed with every property
 * required (optional ones nullable). Never throws: whatever cannot be expressed is in `notes`,
 * and a strict target that cannot hold falls back to its non-strict rules with a `reason`.
 */
export function convertSchema(
  schema: unknown,
  target: SchemaTarget | ProviderSchemaRules,
): ConvertedSchema {
  const rules = typeof target === 'string' ? SCHEMA_RULES[target] : target;
  try {
    return new Walk(schema, rules).run();
  } catch (thrown) {
    if (!(thrown instanceof NotStrict) || rules.fallback === undefined) throw thrown;
    const converted = new Walk(schema, SCHEMA_RULES[rules.fallback]).run();
    return { ...converted, reason: thrown.reason };
  }
}

class Walk extends Inlining {
  #properties = 0;
  #enumValues = 0;

  run(): ConvertedSchema {
    const root = this.resolve(isPlainObject(this.root) ? this.root : {}, '');
    const flat = this.flattenRoot(root);
    const { out, plan } = this.node(flat, '', 0);
    const rules = this.rules;
    const done = { target: rules.target, strict: rules.strict, notes: this.notes };
    if (plan?.json === true) {
      // A root map written as JSON text: providers take an object, so the text goes in one property.
      const schema: Json = { type: this.typeName('object') };
      put(schema, 'properties', { [ROOT_TEXT]: out });
      put(schema, 'required', [ROOT_TEXT]);
      return { ...done, schema, restore: (args) => unwrapRoot(args) as Json };
    }
    const schema = out;
    if (schema.type === undefined) put(schema, 'type', this.typeName('object'));
    if (schema.properties === undefined) put(schema, 'properties', {});
    return {
      ...done,
      schema,
      restore: plan === undefined ? (args) => args : (args) => restore(args, plan) as Json,
    };
  }

  typeName(type: string): string {
    return this.rules.typeCase === 'upper' ? type.toUpperCase() : type;
  }

  node(input: Json, path: string, depth: number): { out: Json; plan?: Plan } {
    const schema = this.resolve(input, path);
    const expanded = schema[EXPANDED] as string | undefined;
    if (expanded !== undefined) this.expanding.push(expanded);
    try {
      return this.write(schema, path, depth);
    } finally {
      if (expanded !== undefined) this.expanding.pop();
    }
  }

  write(schema: Json, path: string, depth: number): { out: Json; plan?: Plan } {
    const rules = this.rules;
    if (rules.maxDepth !== undefined && depth > rules.maxDepth) {
      this.block(path, `nested deeper than ${rules.maxDepth} levels`);
    }
    if (rules.typeUnion === 'nullable') schema = typedEnum(schema);
    if (Array.isArray(schema.items)) schema = asPrefixItems(schema);
    let types = typesOf(schema);
    if (rules.typeUnion === 'nullable' && types !== undefined) {
      const nonNull = types.filter((type) => type !== 'null');
      if (nonNull.length > 1) return this.splitTypes(schema, nonNull, types, path, depth);
    }
    let out: Json = {};
    const moved: [string, unknown][] = [];
    let plan: Plan | undefined;
    let jsonText = false;
    // `items: false`: no item past the tuple's (written as items of any type, it took any).
    let noItems = false;
    let anyOf = schema.anyOf;
    if (schema.oneOf !== undefined && rules.oneOf === 'anyOf') {
      if (anyOf === undefined) {
        anyOf = schema.oneOf;
        this.note(path, 'oneOf written as anyOf (a value matching several branches passes)');
      } else moved.push(['oneOf', schema.oneOf]);
    }
    if (Array.isArray(anyOf)) {
      const branches: { out: Json; plan?: Plan }[] = [];
      anyOf.forEach((branch: unknown, i) => {
        const at = `${path}/anyOf/${i}`;
        // A branch no value meets adds nothing to the union; written as `{}` it took any value.
        if (allowsNothing(branch) && anyOf.some((other: unknown) => !allowsNothing(other))) {
          this.note(at, 'a branch that allows no value left out');
        } else branches.push(this.node(isPlainObject(branch) ? branch : {}, at, depth));
      });
      put(
        out,
        'anyOf',
        branches.map((branch) => branch.out),
      );
      // Which branch a value took is not known when restoring: any branch's nulls are undone,
      // so branches that disagree on what a null means cannot be strict.
      for (const branch of branches) if (branch.plan !== undefined) plan = unite(plan, branch.plan);
      const clash = clashOf(plan);
      if (rules.strict && clash !== undefined)
        this.block(
          `${path}/anyOf${clash}`,
          'union branches disagree on whether null means left out',
        );
    }
    if (schema.const !== undefined && rules.constAs === 'enum' && schema.enum === undefined) {
      schema = { ...schema, enum: [schema.const] };
    }
    if (types === undefined && isPlainObject(schema.properties)) types = ['object'];
    if (types === undefined && schema.const !== undefined)
      types = typesOf({ type: jsonType(schema.const) });
    if (types !== undefined) this.writeType(out, types);
    for (const [key, value] of Object.entries(schema)) {
      if (DROPPED.has(key) || key === 'type' || key === 'anyOf' || key === 'description') continue;
      if (key === 'oneOf' && rules.oneOf === 'anyOf') continue;
      if (key === 'const' && rules.constAs === 'enum') continue;
      if (key === 'properties' || key === 'required' || key === 'additionalProperties') continue;
      if (key === 'items') {
        if (allowsNothing(value)) noItems = true;
        else if (isPlainObject(value) || value === true) {
          // Past a tuple the target cannot hold, items are any of its and the rest's: the rest's
          // alone refused the tuple's (and strict mode makes a model keep to them).
          const tupleMoved =
            Array.isArray(schema.prefixItems) && !rules.keywords.has('prefixItems');
          const item = tupleMoved
            ? this.itemsOf(schema, path, depth)
            : this.node(isPlainObject(value) ? value : {}, `${path}/items`, depth + 1);
          put(out, 'items', item.out);
          if (item.plan !== undefined) plan = unite(plan, { items: item.plan });
        }
        continue;
      }
      if (!rules.keywords.has(key) || !this.keeps(key, value, types)) {
        moved.push([key, value]);
        continue;
      }
      if (ONE_SCHEMA.has(key))
        put(
          out,
          key,
          isPlainObject(value) ? this.node(value, `${path}/${key}`, depth + 1).out : value,
        );
      else if (SCHEMA_LIST.has(key)) put(out, key, this.list(value, `${path}/${key}`, depth));
      else if (SCHEMA_MAP.has(key) && isPlainObject(value)) {
        const map: Json = {};
        for (const [name, sub] of Object.entries(value)) {
          put(
            map,
            name,
            isPlainObject(sub)
              ? this.node(sub, `${path}/${key}/${pointerToken(name)}`, depth + 1).out
              : sub,
          );
        }
        put(out, key, map);
      } else if (COUNT_KEYWORDS.has(key) && rules.counts === 'string') put(out, key, String(value));
      else put(out, key, value);
    }
    if (types?.includes('object') === true) {
      const own = this.writeObject(schema, out, moved, path, depth);
      if (own !== undefined) plan = unite(plan, own);
      if (
        rules.emptyObjects === 'json-text' &&
        // At the root, an object without properties is a tool without arguments, unless it
        // takes free-form keys.
        (path !== '' || takesFreeFormKeys(schema)) &&
        types.filter((type) => type !== 'null').length === 1 &&
        Object.keys(out.properties as Json).length === 0
      ) {
        this.note(path, 'a free-form object written as JSON text');
        const text: Json = { type: this.typeName('string') };
        if (out.nullable === true) put(text, 'nullable', true);
        jsonText = true;
        out = text;
        plan = { json: true };
      }
    } else if (
      rules.strict &&
      out.anyOf === undefined &&
      out.enum === undefined &&
      types === undefined
    ) {
      this.block(path, 'a value of any type (no type given)');
    }
    if (noItems && rules.keywords.has('maxItems')) {
      const most = mostItems(schema);
      put(out, 'maxItems', rules.counts === 'string' ? String(most) : most);
      this.note(path, `items allow no value: at most ${String(most)} (maxItems)`);
    } else if (noItems) moved.push(['items', false]);
    if (rules.strict && types?.includes('array') === true && out.items === undefined) {
      this.block(path, 'an array without an items schema');
    }
    if (rules.typed === true && types?.includes('array') === true && !out.items) {
      const items = this.itemsOf(schema, path, depth);
      put(out, 'items', items.out);
      if (items.plan !== undefined) plan = unite(plan, { items: items.plan });
    }
    if (Array.isArray(out.enum)) this.countEnum(path, out.enum);
    if (rules.enumValues === 'strings' && out.enum !== undefined && out.type === undefined) {
      put(out, 'type', this.typeName('string'));
    }
    if (rules.typed === true && out.type === undefined && out.anyOf === undefined) {
      // A value of any type: any scalar, which the original's schema takes too.
      this.note(path, 'a value of any type written as any scalar');
      put(out, 'anyOf', this.scalars());
    }
    let description = typeof schema.description === 'string' ? schema.description : undefined;
    if (moved.length > 0) {
      for (const [key] of moved) this.note(path, `${key} moved into the description`);
      const said = moved.map(([key, value]) => `${key}: ${clip(value)}`).join('; ');
      description = description === undefined ? `(${said})` : `${description} (${said})`;
    }
    if (jsonText) {
      description = description === undefined ? JSON_TEXT : `${description} ${JSON_TEXT}`;
    }
    if (description !== undefined) put(out, 'description', description);
    return plan === undefined ? { out } : { out, plan };
  }

  /**
   * The `items` of an array schema whose tuple the target cannot hold: any of the tuple's item
   * schemas and of the items past it (the tuple's order and length said in the description
   * already), else any scalar, which the original's any-value items accept too.
   */
  itemsOf(schema: Json, path: string, depth: number): { out: Json; plan?: Plan } {
    const tuple: unknown[] = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    const subs: [unknown, string][] = tuple.map((sub, i) => [sub, `${path}/prefixItems/${i}`]);
    subs.push([schema.items === true ? {} : schema.items, `${path}/items`]);
    const branches = subs
      .filter((sub): sub is [Json, string] => isPlainObject(sub[0]))
      .map(([sub, at]) => this.node(sub, at, depth + 1));
    if (branches.length === 1) return branches[0] as { out: Json; plan?: Plan };
    if (branches.length > 0) {
      this.note(path, 'a tuple written as an array of any of its item schemas');
      let plan: Plan | undefined;
      for (const branch of branches) if (branch.plan !== undefined) plan = unite(plan, branch.plan);
      const out = { anyOf: branches.map((branch) => branch.out) };
      return plan === undefined ? { out } : { out, plan };
    }
    this.note(path, 'items of any type written as any scalar');
    return { out: { anyOf: this.scalars() } };
  }

  /** Any scalar: what a target that needs a type is asked for where any value is taken. */
  scalars(): Json[] {
    return ['string', 'number', 'boolean'].map((type) => ({ type: this.typeName(type) }));
  }

  /** Counts an enum kept against the rules' bounds on enums (OpenAI strict mode's). */
  countEnum(path: string, values: readonly unknown[]): void {
    const { maxEnumValues, longEnum } = this.rules;
    this.#enumValues += values.length;
    if (maxEnumValues !== undefined && this.#enumValues > maxEnumValues) {
      this.block(path, `more than ${String(maxEnumValues)} enum values in all`);
    }
    if (
      longEnum !== undefined &&
      values.length > longEnum.values &&
      values.reduce<number>(
        (sum, value) => sum + (typeof value === 'string' ? value.length : 0),
        0,
      ) > longEnum.chars
    ) {
      this.block(
        path,
        `an enum of more than ${String(longEnum.values)} values over ${String(longEnum.chars)} characters`,
      );
    }
  }

  /** Whether a keyword the rules know can be kept with this value. */
  keeps(key: string, value: unknown, types: readonly string[] | undefined): boolean {
    const rules = this.rules;
    if (key === 'enum') {
      // An empty enum (no value allowed) is refused by providers, or read as no enum at all.
      if (!Array.isArray(value) || value.length === 0) return false;
      if (rules.enumValues === 'any') return true;
      return (
        value.every((item) => typeof item === 'string') &&
        (types === undefined || types.filter((type) => type !== 'null').join() === 'string')
      );
    }
    if (key === 'format') return rules.formats === undefined || rules.formats.has(String(value));
    if (COUNT_KEYWORDS.has(key)) return Number.isInteger(value);
    return true;
  }

  list(value: unknown, path: string, depth: number): unknown[] {
    return Array.isArray(value)
      ? value.map((sub: unknown, i) =>
          isPlainObject(sub) ? this.node(sub, `${path}/${i}`, depth + 1).out : sub,
        )
      : [];
  }

  writeType(out: Json, types: readonly string[]): void {
    if (this.rules.typeUnion === 'array') {
      put(out, 'type', types.length === 1 ? types[0] : [...types]);
      return;
    }
    const nonNull = types.filter((type) => type !== 'null');
    put(out, 'type', this.typeName(nonNull[0] ?? 'null'));
    if (nonNull.length > 0 && nonNull.length < types.length) put(out, 'nullable', true);
  }

  /**
   * Several types, where the target allows one per schema: one `anyOf` branch per type, and the
   * branches' plans in one (a value shows which branch it took: text, an array or an object).
   */
  splitTypes(
    schema: Json,
    nonNull: readonly string[],
    types: readonly string[],
    path: string,
    depth: number,
  ): { out: Json; plan?: Plan } {
    const { type: _type, description, ...rest } = schema;
    const branches = nonNull.map((type) => this.write({ ...rest, type }, path, depth));
    const out: Json = { anyOf: branches.map((branch) => branch.out) };
    if (types.includes('null')) put(out, 'nullable', true);
    if (typeof description === 'string') put(out, 'description', description);
    let plan: Plan | undefined;
    for (const branch of branches) if (branch.plan !== undefined) plan = unite(plan, branch.plan);
    // Beside a string branch, text may be meant as text: it stays so, which the schema takes too.
    if (plan?.json === true && nonNull.includes('string')) {
      const { json: _json, ...kept } = plan;
      plan = Object.keys(kept).length === 0 ? undefined : kept;
    }
    return plan === undefined ? { out } : { out, plan };
  }

  /** Properties, required and additionalProperties, closed and all-required in strict mode. */
  writeObject(
    schema: Json,
    out: Json,
    moved: [string, unknown][],
    path: string,
    depth: number,
  ): Plan | undefined {
    const rules = this.rules;
    const source = isPlainObject(schema.properties) ? schema.properties : {};
    const required = new Set(
      Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : [],
    );
    const properties: Json = {};
    const props = new Map<string, { dropNull: boolean; inner?: Plan }>();
    const kept = new Set<string>();
    for (const [key, value] of Object.entries(source)) {
      if (allowsNothing(value)) {
        // `false` or `enum: []`: the key must not be sent. Written as `{}` it took any value, and
        // Gemini refuses an empty enum; left out, the model is not offered it (and the runner,
        // which validates against the original, still refuses it if sent).
        this.note(
          `${path}/properties/${pointerToken(key)}`,
          required.has(key)
            ? 'allows no value (false or enum: []) yet is required, so no call can pass; left out'
            : 'allows no value (false or enum: []); left out',
        );
        continue;
      }
      kept.add(key);
      this.#properties++;
      const child = this.node(
        isPlainObject(value) ? value : {},
        `${path}/properties/${pointerToken(key)}`,
        depth + 1,
      );
      let written = child.out;
      let dropNull = false;
      if (rules.strict && !required.has(key)) {
        dropNull = !acceptsNull(written);
        if (dropNull) written = nullable(written);
      }
      put(properties, key, written);
      // Strict mode notes every property, so unions can tell which nulls their branches keep.
      if (rules.strict || child.plan !== undefined) {
        props.set(key, child.plan === undefined ? { dropNull } : { dropNull, inner: child.plan });
      }
    }
    if (rules.maxProperties !== undefined && this.#properties > rules.maxProperties) {
      this.block(path, `more than ${rules.maxProperties} properties in all`);
    }
    put(out, 'properties', properties);
    const extra = schema.additionalProperties;
    if (rules.strict) {
      if (isPlainObject(extra) || extra === true)
        this.block(path, 'an object with free-form keys (additionalProperties)');
      // An empty root is a tool without arguments, which strict mode says exactly; an empty
      // object deeper down is a free-form value.
      if (extra === undefined && Object.keys(source).length === 0 && path !== '') {
        this.block(path, 'an object with no declared properties (free-form)');
      }
      for (const key of ['patternProperties', 'propertyNames', 'unevaluatedProperties']) {
        if (schema[key] !== undefined) this.block(path, `${key} (strict objects are closed)`);
      }
      put(out, 'required', [...kept]);
      put(out, 'additionalProperties', false);
    } else {
      const listed = [...required].filter((key) => kept.has(key));
      if (listed.length > 0) put(out, 'required', listed);
      if (extra !== undefined) {
        if (!rules.keywords.has('additionalProperties'))
          moved.push(['additionalProperties', extra]);
        else
          put(
            out,
            'additionalProperties',
            isPlainObject(extra)
              ? this.node(extra, `${path}/additionalProperties`, depth + 1).out
              : extra,
          );
      }
    }
    return props.size === 0 ? undefined : { props };
  }
}
