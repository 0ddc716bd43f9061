// The schema walk's first part, before a node is written in a target's dialect: `$ref`s inlined,
// `allOf` merged, the root's combinators folded into one object.

import { isPlainObject } from '@toolplane/toolmodel';
import { ROOT_FORBIDDEN, type ProviderSchemaRules } from './schema-rules.js';
import { clip, describe, EXPANDED, merge, pointer, put, type Json } from './schema-parts.js';

// What the root cannot hold besides its folded combinators (an `if` with its `then` and `else`).
const ROOT_MOVED: ReadonlySet<string> = new Set(
  [...ROOT_FORBIDDEN, 'then', 'else'].filter((key) => key !== 'anyOf' && key !== 'oneOf'),
);

/** Thrown inside the walk when strict mode cannot express a schema. */
export class NotStrict extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** What the walk needs before it writes a node: inlining, with its notes and strict-mode stops. */
export class Inlining {
  readonly notes: string[] = [];
  /** The `$ref`s being expanded, outermost first: one met again is a cycle. */
  protected readonly expanding: string[] = [];

  constructor(
    readonly root: unknown,
    readonly rules: ProviderSchemaRules,
  ) {}

  note(path: string, what: string): void {
    this.notes.push(`${path === '' ? '/' : path}: ${what}`);
  }

  block(path: string, why: string): void {
    if (this.rules.strict) throw new NotStrict(`${path === '' ? '/' : path}: ${why}`);
  }

  /** `$ref` replaced by its target (siblings win), `allOf` merged in; cycles cut. */
  resolve(schema: Json, path: string): Json {
    let current = schema;
    for (let hops = 0; typeof current.$ref === 'string'; hops++) {
      const ref = current.$ref;
      const { $ref: _ref, ...siblings } = current;
      const found = hops < 32 ? pointer(this.root, ref) : undefined;
      if (found === undefined) {
        this.block(path, `$ref ${ref} cannot be resolved`);
        this.note(path, `$ref ${ref} could not be resolved; any value is described`);
        return { ...siblings, description: describe(siblings, `Any value (unresolved ${ref}).`) };
      }
      if (this.expanding.includes(ref)) {
        this.block(path, `recursive $ref ${ref}`);
        this.note(path, `recursive $ref ${ref} cut after one level`);
        const type =
          isPlainObject(found) && typeof found.type === 'string' ? found.type : undefined;
        return {
          ...(type === undefined ? {} : { type }),
          description: describe(
            isPlainObject(found) ? found : {},
            `Recursive: the same shape as ${ref} above.`,
          ),
        };
      }
      current = { ...(isPlainObject(found) ? found : {}), ...siblings, [EXPANDED]: ref };
    }
    if (Array.isArray(current.allOf)) {
      // A branch may lead back here: the ref being merged counts as being expanded.
      const ref = current[EXPANDED];
      if (typeof ref === 'string') this.expanding.push(ref);
      try {
        current = this.mergeAll(current, path);
      } finally {
        if (typeof ref === 'string') this.expanding.pop();
      }
    }
    return current;
  }

  mergeAll(schema: Json, path: string): Json {
    const { allOf, ...rest } = schema;
    let merged: Json = rest;
    // A branch closed with additionalProperties: false forbids what it does not declare, even
    // when another branch declares it: only keys every closed branch declares can be sent.
    const closed: Json[] = [];
    for (const branch of [rest, ...(allOf as unknown[])]) {
      if (!isPlainObject(branch)) continue;
      const resolved = branch === rest ? rest : this.resolve(branch, `${path}/allOf`);
      if (resolved.additionalProperties === false)
        closed.push(isPlainObject(resolved.properties) ? resolved.properties : {});
      if (branch !== rest)
        merged = merge(merged, resolved, (key) => {
          this.note(path, `allOf branches disagree on ${key}; the first is kept`);
        });
    }
    if (closed.length > 0 && isPlainObject(merged.properties)) {
      const allowed: Json = {};
      for (const [key, sub] of Object.entries(merged.properties))
        if (closed.every((properties) => Object.hasOwn(properties, key))) put(allowed, key, sub);
      merged = { ...merged, properties: allowed };
    }
    return merged;
  }

  /**
   * The root as one object: combinators there (which providers refuse) folded into it, and the
   * other keywords providers refuse there (`not`, `enum`, `if`) moved into its description.
   */
  flattenRoot(root: Json): Json {
    const { anyOf, oneOf, ...rest } = root;
    const flat: Json = { ...rest, type: 'object' };
    for (const [keyword, branches] of [
      ['anyOf', anyOf],
      ['oneOf', oneOf],
    ] as const) {
      if (!Array.isArray(branches)) continue;
      const properties: Json = isPlainObject(flat.properties) ? { ...flat.properties } : {};
      for (const branch of branches) {
        if (!isPlainObject(branch)) continue;
        const resolved = this.resolve(branch, `/${keyword}`);
        if (!isPlainObject(resolved.properties)) continue;
        for (const [key, value] of Object.entries(resolved.properties)) {
          if (!Object.hasOwn(properties, key)) put(properties, key, value);
        }
      }
      put(flat, 'properties', properties);
      this.note('', `top-level ${keyword} moved into the description, its properties optional`);
      put(flat, 'description', describe(flat, `${keyword}: ${clip(branches)}`));
    }
    // The root's other constraints no provider takes there (`if` with its `then` and `else`):
    // said in the description, which is all the model can be told; the runner validates them.
    const moved: string[] = [];
    for (const keyword of ROOT_MOVED) {
      if (flat[keyword] === undefined) continue;
      moved.push(`${keyword}: ${clip(flat[keyword])}`);
      this.note('', `top-level ${keyword} moved into the description`);
    }
    if (moved.length === 0) return flat;
    const kept: Json = {};
    for (const [key, value] of Object.entries(flat)) {
      if (!ROOT_MOVED.has(key)) put(kept, key, value);
    }
    put(kept, 'description', describe(flat, `(${moved.join('; ')})`));
    return kept;
  }
}
