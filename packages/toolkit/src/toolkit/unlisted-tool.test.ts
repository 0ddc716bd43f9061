import { fixtureCommand } from '@toolplane/fixtures';
import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { runToolkit } from '../testing/run-toolkit.js';
import { createToolkit } from './toolkit.js';

// A call to a tool no server listed: "not found" when its server is connected and lacks it, the
// server's own state (and why) when the server is not connected, so nobody hunts a typo that
// is really a dead or logged-out server.
describe('calling a tool that is not listed', () => {
  it("gets the server's state when its server is not connected", async () => {
    // A long backoff keeps it failed while the test looks.
    const toolkit = createToolkit({
      connectorDefaults: { backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 } },
    });
    toolkit.addConnector(
      { command: process.execPath, args: ['-e', 'process.exit(3)'] },
      { namespace: 'down' },
    );
    const { stop } = await runToolkit(toolkit);
    try {
      expect(toolkit.connector('down')?.state).toBe('failed');
      const error = await toolkit.callTool('down:anything').catch((e: unknown) => e);
      expect(ToolError.isInstance(error) && error.code).toBe('connector_unavailable');
      expect((error as Error).message).toMatch(/MCP server "down" is not connected \(failed/);
      // A call by key the same: `ns:name` and `ns.name` alike.
      for (const key of ['down:anything', 'down.anything']) {
        const byKey = await toolkit.call(key).catch((e: unknown) => e);
        expect(ToolError.isInstance(byKey) && byKey.code).toBe('connector_unavailable');
      }
    } finally {
      await stop();
    }
  });

  it('is not found when its server is connected and does not have it', async () => {
    const toolkit = createToolkit();
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const { stop } = await runToolkit(toolkit);
    try {
      expect(toolkit.connector('fx')?.state).toBe('connected');
      const error = await toolkit.callTool('fx:no_such_tool').catch((e: unknown) => e);
      expect(ToolError.isInstance(error) && error.code).toBe('tool_not_found');
    } finally {
      await stop();
    }
  });

  it("gets the server's state by key once the toolkit is closed", async () => {
    const toolkit = createToolkit();
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const { stop } = await runToolkit(toolkit);
    await stop();
    const byKey = await toolkit.call('fx:echo', { text: 'hi' }).catch((e: unknown) => e);
    const byId = await toolkit.callTool('fx:echo', { text: 'hi' }).catch((e: unknown) => e);
    expect(ToolError.isInstance(byKey) && byKey.code).toBe('connector_unavailable');
    expect(ToolError.isInstance(byId) && byId.code).toBe('connector_unavailable');
  });
});
