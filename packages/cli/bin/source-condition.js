// Module resolve hook: adds the `@toolplane/source` export condition, so that running from a
// clone resolves every workspace package to its TypeScript source (see ./toolplane.js).
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, {
    ...context,
    conditions: [...context.conditions, '@toolplane/source'],
  });
}
