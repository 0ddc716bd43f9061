import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

interface Manifest {
  readonly name: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
}

// HTTP server frameworks and their middleware: what the spec layer must never bring along.
const HTTP_SERVER_STACK = [
  'express',
  'hono',
  '@hono/node-server',
  'cors',
  'body-parser',
  'express-rate-limit',
  'fastify',
];

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** The installed directory of `name` as Node would find it from `fromDir`, following links. */
function findInstalled(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Names of every package installed to run the package in `root`: its runtime closure. */
function runtimeClosure(root: string): Set<string> {
  const seen = new Set<string>();
  const visited = new Set<string>();
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    if (visited.has(dir)) continue;
    visited.add(dir);
    const manifest = readManifest(dir);
    if (dir !== root) seen.add(manifest.name);
    const optional = Object.keys(manifest.optionalDependencies ?? {});
    for (const name of [...Object.keys(manifest.dependencies ?? {}), ...optional]) {
      const found = findInstalled(name, dir);
      if (found === undefined) {
        // An optional dependency may be absent on this platform; a required one may not.
        if (!optional.includes(name)) throw new Error(`${manifest.name}: ${name} not installed`);
        continue;
      }
      pending.push(found);
    }
  }
  return seen;
}

describe('the runtime dependencies of @toolplane/toolmodel', () => {
  const root = realpathSync(fileURLToPath(new URL('..', import.meta.url)));
  const closure = runtimeClosure(root);

  it('include the SDK part with the spec schemas', () => {
    expect(closure).toContain('@modelcontextprotocol/core');
  });

  it('pull in no HTTP server stack', () => {
    expect([...closure].filter((name) => HTTP_SERVER_STACK.includes(name))).toEqual([]);
  });
});
