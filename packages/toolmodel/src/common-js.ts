/**
 * A CommonJS package's exports, from its dynamic `import()`: Node gives them as names and as
 * `default`, a bundle that splits the package into a chunk of its own (the CLI's, by esbuild) as
 * `default` alone. Read a lazily imported CommonJS package through this, never by destructuring
 * the names, which are `undefined` in the bundle.
 */
export function commonJs<T extends object>(module: T): T {
  return (module as { default?: T }).default ?? module;
}
