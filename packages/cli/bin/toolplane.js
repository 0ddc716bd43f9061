#!/usr/bin/env node
// The `toolplane` command. It always exists, so a fresh `pnpm install` can link it before any
// build. In a clone of the repository it runs the TypeScript source through tsx (never a stale
// build); an installed package, which ships no source, runs the compiled dist/bin.js.
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { URL } from 'node:url';

const source = new URL('../src/bin.ts', import.meta.url);

function tsxApi() {
  try {
    return import.meta.resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
}

const tsx = existsSync(source) ? tsxApi() : undefined;
if (tsx === undefined) {
  await import('../dist/bin.js');
} else {
  // The workspace packages' `@toolplane/source` export condition, as `--conditions` would add it.
  register('./source-condition.js', import.meta.url);
  const { register: registerTsx } = await import(tsx);
  registerTsx();
  await import(source.href);
}
