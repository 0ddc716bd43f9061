import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import {
  connectInMemory,
  everythingCommand,
  fixtureCommand,
  startHttpFixture,
  startRecordingProxy,
} from '@toolplane/fixtures';
import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { createConnector, type Connector, type ConnectorListKind } from './connector.js';
import { ListCache, mirroredLists } from './connector-lists.js';
import { useStartedConnectors } from './testing/started-connectors.js';

const connect = useStartedConnectors();

/** The methods of the requests in `sent`. */
const methods = (sent: readonly JSONRPCMessage[]): string[] =>
  sent.flatMap((message) => ('method' in message && 'id' in message ? [message.method] : []));

// A stdio MCP server written by hand that announces a tool list change before it answers
// `initialize` and again when its `change` tool is called, and answers its `seen` tool with the
// methods of everything it was sent, in order.
const EARLY_NOTICE_SERVER = `
const lines = require('node:readline').createInterface({ input: process.stdin });
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
const reply = (id, result) => send({ jsonrpc: '2.0', id, result });
const changed = () => send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
const tool = (name) => ({ name, inputSchema: { type: 'object' } });
const seen = [];
let tools = [tool('seen'), tool('change')];
lines.on('line', (line) => {
  const m = JSON.parse(line);
  seen.push(m.method);
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    changed();
    reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'early-notice', version: '1' } });
  } else if (m.method === 'tools/list') {
    reply(m.id, { tools });
  } else if (m.method === 'tools/call' && m.params.name === 'change') {
    tools = [...tools, tool('added')];
    reply(m.id, { content: [{ type: 'text', text: 'changed' }] });
    changed();
  } else if (m.method === 'tools/call') {
    reply(m.id, { content: [{ type: 'text', text: JSON.stringify(seen) }] });
  } else {
    send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;

const earlyNoticeServer = { command: process.execPath, args: ['-e', EARLY_NOTICE_SERVER] };

describe('a tool list change the server announces', () => {
  /** What the server was sent so far, as its `seen` tool tells. */
  async function seenBy(connector: Connector): Promise<string[]> {
    const result = await connector.client!.callTool({ name: 'seen', arguments: {} });
    const [block] = result.content as { text: string }[];
    return JSON.parse(block?.text ?? '[]') as string[];
  }

  it('before it answers initialize is in the first list: listed once, after the handshake', async () => {
    const { connector, events } = connect(earlyNoticeServer);
    await connector.ready();
    const seen = await seenBy(connector);
    expect(seen.filter((method) => method === 'tools/list')).toHaveLength(1);
    expect(seen.indexOf('tools/list')).toBeGreaterThan(seen.indexOf('notifications/initialized'));
    expect(events.filter((event) => event.type === 'tool_list_changed')).toEqual([]);
  });

  it('once connected is followed: the list is fetched again', async () => {
    const { connector, events, waitFor } = connect(earlyNoticeServer);
    await connector.ready();
    const from = events.length;
    await connector.client!.callTool({ name: 'change', arguments: {} });
    await waitFor((event) => event.type === 'tool_list_changed', from);
    expect(connector.lists.tools.map((tool) => tool.name)).toEqual(['seen', 'change', 'added']);
  });
});

describe('ConnectorOptions.lists', () => {
  it('mirrors only the tools when told so; the server offers a prompt and resources too', async () => {
    const { connector } = connect(fixtureCommand('stdio'), { lists: ['tools'] });
    await connector.ready();
    expect(connector.lists.tools.map((tool) => tool.name)).toContain('echo');
    expect(connector.lists.prompts).toEqual([]);
    expect(connector.lists.resources).toEqual([]);
    expect(connector.lists.resourceTemplates).toEqual([]);
    const offered = await connector.client!.listPrompts();
    expect(offered.prompts.map((prompt) => prompt.name)).toEqual(['echo']);
  });

  it('brings the resource templates with the resources', async () => {
    const { connector } = connect(everythingCommand(), { lists: ['resources'] });
    await connector.ready();
    expect(connector.lists.resources.length).toBeGreaterThan(0);
    expect(connector.lists.resourceTemplates.length).toBeGreaterThan(0);
    expect(connector.lists.tools).toEqual([]);
    expect(connector.lists.prompts).toEqual([]);
  });

  it('does not follow a change to a list it does not mirror', async () => {
    const { connector, events } = connect(fixtureCommand('stdio'), { lists: ['prompts'] });
    await connector.ready();
    // The fixture announces the new tool with tools/list_changed before the call answers.
    await connector.client!.callTool({ name: 'define-tool', arguments: { name: 'late' } });
    // A marker: the notification before it has been handled once its answer is back.
    await connector.client!.ping();
    expect(events.filter((event) => event.type === 'tool_list_changed')).toEqual([]);
    expect(connector.lists.tools).toEqual([]);
    expect(connector.lists.prompts.map((prompt) => prompt.name)).toEqual(['echo']);
  });

  it('asks a 2026-07-28 server for changes to the lists it mirrors only', async () => {
    const fixture = await startHttpFixture({ server: fixtureCommand('http-2026') });
    const proxy = await startRecordingProxy({ url: fixture.url });
    const listened = () =>
      proxy.messages
        .filter((message) => message.method === 'subscriptions/listen')
        .map((message) => (message.params as { notifications?: unknown }).notifications);
    try {
      const all = connect(proxy.url).connector;
      await all.ready();
      expect(listened()).toEqual([
        { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
      ]);
      await all.close();
      const toolsOnly = connect(proxy.url, { lists: ['tools'] }).connector;
      await toolsOnly.ready();
      expect(listened()[1]).toEqual({ toolsListChanged: true });
    } finally {
      await proxy.close();
      await fixture.close();
    }
  });

  it.each([
    [['tool'], /"tool" is not a list a server offers; did you mean "tools"\?/],
    [
      ['tools', 'sampling'],
      /"sampling" is not a list a server offers; use tools, prompts, resources/,
    ],
    ['tools', /lists must be an array of "tools", "prompts", "resources", got "tools"/],
  ])('refuses lists %j with invalid_config', (lists, message) => {
    let thrown: unknown;
    try {
      createConnector(fixtureCommand('stdio'), {
        lists: lists as unknown as ConnectorListKind[],
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ToolError);
    expect((thrown as ToolError).code).toBe('invalid_config');
    expect((thrown as ToolError).message).toMatch(message);
  });
});

describe('ListCache', () => {
  it('requests only the lists it mirrors, on connect and on a refresh', async () => {
    const sent: JSONRPCMessage[] = [];
    const connection = await connectInMemory({ sent });
    const { client } = connection;
    try {
      sent.length = 0;
      const cache = new ListCache(() => undefined, mirroredLists(['prompts']));
      await cache.loadAll(client);
      await cache.refresh(client, 'tools');
      await cache.refresh(client, 'resources');
      expect(methods(sent)).toEqual(['prompts/list']);
      expect(cache.current.prompts.map((prompt) => prompt.name)).toEqual(['echo']);
      expect(cache.current.tools).toEqual([]);

      sent.length = 0;
      await new ListCache(() => undefined).loadAll(client);
      expect(methods(sent)).toEqual([
        'tools/list',
        'prompts/list',
        'resources/list',
        'resources/templates/list',
      ]);
    } finally {
      await connection.close();
    }
  });
});
