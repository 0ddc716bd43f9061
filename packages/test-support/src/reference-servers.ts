import { createRequire } from 'node:module';
import { join } from 'node:path';
import { everythingCommand } from '@toolplane/fixtures';
import type { Toolkit } from '@toolplane/toolkit';

const require = createRequire(import.meta.url);

/**
 * The entry file of a reference MCP server package (`filesystem`, `memory`); server-everything
 * starts by `everythingCommand` of @toolplane/fixtures.
 */
export function referenceServer(name: 'filesystem' | 'memory'): string {
  return require.resolve(`@modelcontextprotocol/server-${name}/dist/index.js`);
}

/**
 * Adds the three reference MCP servers to `toolkit` as stdio children, under the namespaces
 * `everything`, `filesystem` (serving `dir`) and `memory` (its graph in `dir/memory.jsonl`).
 * Run the toolkit afterwards (`runToolkit`), and stop it when done.
 */
export function addReferenceServers(toolkit: Toolkit, dir: string): void {
  toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
  toolkit.addConnector(
    { command: process.execPath, args: [referenceServer('filesystem'), dir] },
    { namespace: 'filesystem' },
  );
  toolkit.addConnector(
    {
      command: process.execPath,
      args: [referenceServer('memory')],
      env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
    },
    { namespace: 'memory' },
  );
}
