// An esbuild plugin shared by the CLI's bundle (bundle-bin.js) and the test run's bundles of the
// entries tests start as children (packages/test-support/src/child-bundles.ts).
import { readFile } from 'node:fs/promises';

/**
 * The MCP SDK's Node shims, which hand every client and server ajv's validator: evaluating them
 * evaluates ajv (~300 kB) as the SDK loads, although a validator builds an engine only for a
 * schema it checks (a tool's output schema, an elicited answer). Each stands in for its shim
 * with the same exports, the validator's class loading the real one on first use. `shim` is
 * what the real shim must still export, and `kept` the line it must still hold, for the stand-in
 * to be right: the build fails otherwise.
 */
const SHIMS = {
  '@modelcontextprotocol/client/_shims': {
    from: /[\\/]@modelcontextprotocol[\\/]client[\\/]dist[\\/]/,
    real: '@modelcontextprotocol/client/validators/ajv',
    shim: /export \{ CORS_IS_POSSIBLE, AjvJsonSchemaValidator as DefaultJsonSchemaValidator \};/,
    kept: 'const CORS_IS_POSSIBLE = false;',
    rest: 'export const CORS_IS_POSSIBLE = false;',
  },
  '@modelcontextprotocol/server/_shims': {
    from: /[\\/]@modelcontextprotocol[\\/]server[\\/]dist[\\/]/,
    real: '@modelcontextprotocol/server/validators/ajv',
    shim: /export \{ AjvJsonSchemaValidator as DefaultJsonSchemaValidator, process \};/,
    kept: 'import process from "node:process";',
    rest: "export { default as process } from 'node:process';",
  },
};

/**
 * A plugin answering the imports of the SDK shims named in `names` with their stand-ins.
 * `requireBase(importer)` is the JavaScript expression (evaluated at run time) of the path or
 * URL the real validator is required from, for a shim imported by the file `importer`.
 */
export function lazySdkValidators(names, requireBase) {
  for (const name of names) {
    if (!(name in SHIMS)) throw new Error(`no stand-in for ${name}`);
  }
  const filter = new RegExp(`^(${names.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})$`);
  return {
    name: 'lazy-sdk-validators',
    setup(esbuild) {
      esbuild.onResolve({ filter }, async (args) => {
        // The real module, resolved below to check it.
        if (args.pluginData === 'real') return undefined;
        const shim = SHIMS[args.path];
        if (!shim.from.test(args.importer)) {
          throw new Error(`${args.importer} imports ${args.path}, which the bundle stands in for`);
        }
        const real = await esbuild.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          pluginData: 'real',
        });
        const text = real.errors.length > 0 ? '' : await readFile(real.path, 'utf8');
        if (!shim.shim.test(text) || !text.includes(shim.kept)) {
          throw new Error(
            `${args.path} no longer exports what its stand-in (lazy-sdk-validators.js) does`,
          );
        }
        return {
          path: args.path,
          namespace: 'lazy-sdk-validator',
          pluginData: requireBase(args.importer),
        };
      });
      esbuild.onLoad({ filter: /.*/, namespace: 'lazy-sdk-validator' }, (args) => ({
        contents: standIn(SHIMS[args.path], args.pluginData),
        loader: 'js',
      }));
    },
  };
}

function standIn(shim, requireBase) {
  return `import { createRequire } from 'node:module';
${shim.rest}
let Ajv;
export class DefaultJsonSchemaValidator {
  #real;
  #engine() {
    Ajv ??= createRequire(${requireBase})(${JSON.stringify(shim.real)}).AjvJsonSchemaValidator;
    this.#real ??= new Ajv();
    return this.#real;
  }
  get ajv() {
    return this.#engine().ajv;
  }
  getValidator(schema) {
    return this.#engine().getValidator(schema);
  }
}
`;
}
