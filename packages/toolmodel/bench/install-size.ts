// What installing @toolplane/toolmodel brings in: the packages of its production dependency
// closure (dependencies, non-optional peers) as installed in this workspace, and the bytes of
// their files (their own node_modules left out). It also checks that the closure holds no MCP
// client or server and no HTTP server stack. Run after `pnpm install`; the figures are the
// installed versions', so they move with the lockfile.
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const manifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** The folder `name` resolves to from `dir`, as Node looks it up (node_modules up the tree). */
function resolvePackage(name: string, dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    try {
      statSync(join(candidate, 'package.json'));
      return realpathSync(candidate);
    } catch {
      if (dirname(at) === at) return undefined;
    }
  }
}

function bytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

const root = realpathSync(fileURLToPath(new URL('..', import.meta.url)));
const closure = new Map<string, string>();
const pending = [root];
while (pending.length > 0) {
  const dir = pending.pop() as string;
  const pkg = manifest(dir);
  const optionalPeers = pkg.peerDependenciesMeta ?? {};
  const names = [
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}).filter((name) => !optionalPeers[name]?.optional),
  ];
  for (const name of names) {
    const found = resolvePackage(name, dir);
    if (found === undefined)
      throw new Error(`${pkg.name} depends on ${name}, which is not installed`);
    if (closure.has(found)) continue;
    closure.set(found, name);
    pending.push(found);
  }
}

const rows = [...closure.keys()]
  .map((dir) => ({ id: `${manifest(dir).name}@${manifest(dir).version}`, size: bytes(dir) }))
  .sort((a, b) => b.size - a.size);
const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;
const total = rows.reduce((sum, row) => sum + row.size, 0);
const forbidden = [
  '@modelcontextprotocol/client',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/sdk',
  'express',
  'hono',
  'cors',
];
const present = [...closure.values()].filter((name) => forbidden.includes(name));
console.log(
  `@toolplane/toolmodel's dependency closure: ${String(rows.length)} packages, ${mb(total)} of files`,
);
for (const row of rows) console.log(`  ${row.id.padEnd(36)} ${mb(row.size).padStart(8)}`);
console.log(
  present.length === 0
    ? '  no MCP client or server, no HTTP server stack (express, hono, cors): MET'
    : `  MISSED: the closure holds ${present.join(', ')}`,
);
