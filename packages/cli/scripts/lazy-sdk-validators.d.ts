import type { Plugin } from 'esbuild';

/** Stands in for the MCP SDK shims named, their validator loading ajv on first use (see lazy-sdk-validators.js). */
export declare function lazySdkValidators(
  names: readonly string[],
  requireBase: (importer: string) => string,
): Plugin;
