/**
 * Captures the real `tools/list` results of a few MCP servers from npm into
 * src/testdata/catalogue.json, the catalogue the search-quality test ranks against.
 *
 * Run with `pnpm --filter @toolplane/toolindex capture:catalogue` after bumping a server.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

interface ServerSpec {
  /** Namespace the tools are registered under in tests. */
  readonly namespace: string;
  readonly packageName: string;
  readonly args: (scratch: string) => string[];
  readonly env?: (scratch: string) => Record<string, string>;
}

const servers: readonly ServerSpec[] = [
  {
    namespace: 'everything',
    packageName: '@modelcontextprotocol/server-everything',
    args: () => ['stdio'],
  },
  {
    namespace: 'filesystem',
    packageName: '@modelcontextprotocol/server-filesystem',
    args: (scratch) => [scratch],
  },
  {
    namespace: 'memory',
    packageName: '@modelcontextprotocol/server-memory',
    args: () => [],
    env: (scratch) => ({ MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') }),
  },
];

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

async function binOf(packageName: string): Promise<{ path: string; version: string }> {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
    version: string;
    bin: Record<string, string>;
  };
  const [bin] = Object.values(manifest.bin);
  if (bin === undefined) throw new Error(`${packageName} has no bin`);
  return { path: join(dirname(manifestPath), bin), version: manifest.version };
}

async function capture(spec: ServerSpec, scratch: string): Promise<Record<string, unknown>> {
  const { path, version } = await binOf(spec.packageName);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path, ...spec.args(scratch)],
    env: { PATH: process.env.PATH ?? '', ...spec.env?.(scratch) },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'toolindex-catalogue', version: '1.0.0' });
  await client.connect(transport);
  try {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return { namespace: spec.namespace, package: spec.packageName, version, tools };
  } finally {
    await client.close();
  }
}

const scratch = await mkdtemp(join(tmpdir(), 'toolindex-catalogue-'));
try {
  const captured = [];
  for (const spec of servers) captured.push(await capture(spec, scratch));
  const out = join(here, '..', 'src', 'testdata', 'catalogue.json');
  await writeFile(out, `${JSON.stringify({ servers: captured }, null, 2)}\n`);
  const counts = captured.map((s) => `${String(s.namespace)}: ${(s.tools as unknown[]).length}`);
  console.log(`wrote ${out} (${counts.join(', ')})`);
} finally {
  await rm(scratch, { recursive: true, force: true });
}
