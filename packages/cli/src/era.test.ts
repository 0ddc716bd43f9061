import { fixtureCommand } from '@toolplane/fixtures';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { openToolkit } from './open.js';

// A server's `era` in the config reaches its connector: pinned, or negotiated by default.
describe('the era of a configured server', () => {
  it('is negotiated unless pinned, against real servers that speak both eras', async () => {
    const dual = fixtureCommand('stdio-dual');
    const config = parseConfig(
      JSON.stringify({
        mcpServers: {
          negotiated: { command: dual.command, args: dual.args },
          pinned: { command: dual.command, args: dual.args, era: '2025' },
        },
        builtins: false,
        store: 'memory',
      }),
      { file: 'era.config.json', env: {} },
    );
    const opened = await openToolkit(config);
    try {
      const eras = Object.fromEntries(
        opened.toolkit.connectors().map((status) => [status.namespace, status.era]),
      );
      expect(eras).toEqual({ negotiated: '2026', pinned: '2025' });
    } finally {
      await opened.close();
    }
  });
});
