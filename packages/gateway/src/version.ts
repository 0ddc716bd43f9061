import { readFileSync } from 'node:fs';

/** This package's version, from its package.json (the same relative path from src/ and dist/). */
export const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
