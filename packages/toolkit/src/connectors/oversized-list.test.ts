import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { createConnector, type ConnectorEvent } from './connector.js';
import { useStartedConnectors } from './testing/started-connectors.js';

const MIB = 1024 * 1024;

// A stdio MCP server written by hand that lists its tools in two pages: `small` and `grow`, then,
// once `grow` was called (or from the start when its argument is `big`), a second page of 2,300
// tools with 5,000-character descriptions: one ~11.5 MB line, over the 10 MiB default limit.
// `grow` announces the change with notifications/tools/list_changed. Answers are serialised as the
// TypeScript SDK does, result first and the ID last.
const SERVER = `
const lines = require('node:readline').createInterface({ input: process.stdin });
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
const reply = (id, result) => send({ result, jsonrpc: '2.0', id });
const tool = (name, description) => ({ name, description, inputSchema: { type: 'object' } });
let big = process.argv[1] === 'big';
const bigPage = () => Array.from({ length: 2300 }, (_, i) => tool('t' + i, 'd'.repeat(5000)));
lines.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === 'initialize') {
    reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'big-list', version: '1' } });
  } else if (m.method === 'tools/list' && m.params?.cursor === 'more') {
    reply(m.id, { tools: bigPage() });
  } else if (m.method === 'tools/list') {
    reply(m.id, { tools: [tool('small', 'small'), tool('grow', 'grow')], ...(big ? { nextCursor: 'more' } : {}) });
  } else if (m.method === 'tools/call' && m.params.name === 'grow') {
    big = true;
    reply(m.id, { content: [{ type: 'text', text: 'grown' }] });
    send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  } else if (m.method === 'tools/call') {
    reply(m.id, { content: [{ type: 'text', text: 'small' }] });
  } else {
    reply(m.id, {});
  }
});
`;

const connect = useStartedConnectors();

function start(mode: 'big' | 'small', maxMessageBytes?: number, initialDelayMs = 60_000) {
  return connect(
    { command: process.execPath, args: ['-e', SERVER, mode] },
    {
      namespace: 'lists',
      backoff: { initialDelayMs },
      ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
    },
  );
}

const failedWith = (event: ConnectorEvent): boolean =>
  event.type === 'state_change' && event.state === 'failed' && event.error !== undefined;

function errorOf(event: ConnectorEvent): ToolError {
  const error = event.type === 'state_change' ? event.error : undefined;
  expect(ToolError.isInstance(error)).toBe(true);
  return error as ToolError;
}

describe('a tools/list page over the connector’s maxMessageBytes', () => {
  it('fails the connection with a typed message_too_large error instead of hanging', async () => {
    const { connector, log } = start('big');
    const refused = await connector.ready().catch((error: unknown) => error);
    expect(ToolError.isInstance(refused)).toBe(true);
    expect((refused as ToolError).code).toBe('connector_unavailable');
    expect(ToolError.isInstance((refused as ToolError).cause)).toBe(true);
    expect(((refused as ToolError).cause as ToolError).code).toBe('message_too_large');
    const error = errorOf(await log.waitFor(failedWith));
    expect(error.code).toBe('message_too_large');
    expect(error.message).toMatch(/tools\/list/);
    expect(error.message).toMatch(/maxMessageBytes/);
    expect(connector.state).toBe('failed');
  });

  it('lists every tool when maxMessageBytes is raised above the page', async () => {
    const { connector } = start('big', 16 * MIB);
    await connector.ready();
    expect(connector.lists.tools).toHaveLength(2302);
  });

  it('reports the error when a list change brings the oversized page, and reconnects', async () => {
    const { connector, log } = start('small', undefined, 10);
    await connector.ready();
    expect(connector.lists.tools.map((t) => t.name)).toEqual(['small', 'grow']);
    const from = log.events.length;
    await connector.client?.callTool({ name: 'grow' });
    const dropped = await log.waitFor(
      (event) => event.type === 'state_change' && event.state === 'disconnected',
      { from },
    );
    expect(errorOf(dropped).code).toBe('message_too_large');
    // A new server process starts small again: the reconnection lists it afresh.
    await log.waitFor((event) => event.type === 'state_change' && event.state === 'connected', {
      from: log.events.indexOf(dropped),
    });
    expect(connector.lists.tools.map((t) => t.name)).toEqual(['small', 'grow']);
  });

  it('refuses a maxMessageBytes that is not a positive integer', () => {
    for (const maxMessageBytes of [0, -1, 1.5, Number.NaN]) {
      expect(() =>
        createConnector({ command: process.execPath, args: ['-e', SERVER] }, { maxMessageBytes }),
      ).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
  });
});
