import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/client';
import { fixtureCommand, recordEvents } from '@toolplane/fixtures';
import { ToolError } from '@toolplane/toolmodel';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  ConnectorClientLike,
  ConnectorFactory,
  ConnectorLists,
  ConnectorOptions,
  ConnectorState,
  ToolkitConnector,
} from '../connectors/connector.js';
import { runToolkit, type RunningToolkit } from '../testing/run-toolkit.js';
import { createToolkit } from './toolkit.js';
import type { ToolkitEvent } from './types.js';

const forecast: McpTool = {
  name: 'forecast',
  description: 'The weather tomorrow in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** A connector to no MCP server at all: its tools are answered in-process. */
class WeatherConnector implements ToolkitConnector {
  readonly namespace: string;
  state: ConnectorState = 'disconnected';
  lists: ConnectorLists = { tools: [], prompts: [], resources: [], resourceTemplates: [] };
  lastError: Error | undefined;
  readonly #onEvent: ConnectorOptions['onEvent'];
  readonly calls: unknown[] = [];

  constructor(options: ConnectorOptions & { readonly namespace: string }) {
    this.namespace = options.namespace;
    this.#onEvent = options.onEvent;
  }

  get client(): ConnectorClientLike | undefined {
    if (this.state !== 'connected') return undefined;
    return {
      callTool: (params) => {
        this.calls.push(params.arguments);
        const city = (params.arguments as { city?: unknown } | undefined)?.city;
        const result: CallToolResult = {
          content: [{ type: 'text', text: `sunny in ${String(city)}` }],
          structuredContent: { city, sky: 'sunny' },
        };
        return Promise.resolve(result);
      },
      getPrompt: () => Promise.reject(new Error('no prompts here')),
      readResource: () => Promise.reject(new Error('no resources here')),
      getServerCapabilities: () => ({ tools: { listChanged: true } }),
    };
  }

  start(): void {
    this.lists = { ...this.lists, tools: [forecast] };
    this.state = 'connected';
    this.#onEvent?.({ type: 'state_change', namespace: this.namespace, state: 'connected' });
  }

  ready(): Promise<void> {
    return this.state === 'connected' ? Promise.resolve() : Promise.reject(this.unavailable());
  }

  unavailable(): ToolError {
    return new ToolError('connector_unavailable', `weather "${this.namespace}" is ${this.state}`);
  }

  addTool(tool: McpTool): void {
    this.lists = { ...this.lists, tools: [...this.lists.tools, tool] };
    this.#onEvent?.({ type: 'tool_list_changed', namespace: this.namespace });
  }

  close(): Promise<void> {
    this.state = 'disconnected';
    this.#onEvent?.({ type: 'state_change', namespace: this.namespace, state: 'disconnected' });
    return Promise.resolve();
  }
}

const running: RunningToolkit[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

describe('ToolkitOptions.createConnector', () => {
  it('plugs in a non-MCP connector for the sources it takes, the MCP one for the rest', async () => {
    const built: WeatherConnector[] = [];
    const factory: ConnectorFactory = (source, options) => {
      if (!(source instanceof URL) || source.protocol !== 'weather:') return undefined;
      const connector = new WeatherConnector(options);
      built.push(connector);
      return connector;
    };
    const events = recordEvents<ToolkitEvent>();
    const toolkit = createToolkit({ createConnector: factory });
    toolkit.onEvent(events.push);
    toolkit.addConnector(new URL('weather://oslo'), { namespace: 'weather' });
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx', era: '2025' });
    running.push(await runToolkit(toolkit));

    expect(built).toHaveLength(1);
    expect(toolkit.connector('weather')).toBe(built[0]);
    const result = await toolkit.callTool('weather:forecast', { city: 'Oslo' });
    expect(result.mcpResult?.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });
    expect(built[0]?.calls).toEqual([{ city: 'Oslo' }]);
    // Arguments are checked against the connector's schema before it is called.
    await expect(toolkit.callTool('weather:forecast', { city: 7 })).rejects.toMatchObject({
      code: 'validation',
    });
    expect(built[0]?.calls).toHaveLength(1);

    // Its list changes reach the toolkit like an MCP server's.
    built[0]?.addTool({ ...forecast, name: 'rain' });
    await events.waitFor((event) => event.type === 'tool_list_changed');
    expect(toolkit.index.getTool('weather:rain')).toBeDefined();

    // The MCP server next to it is the built-in connector, and says who it is when it connects.
    const sum = await toolkit.callTool('fx:add', { a: 1, b: 2 });
    expect(sum.mcpResult?.structuredContent).toEqual({ sum: 3 });
    const connected = await events.waitFor(
      (event) =>
        event.type === 'state_change' && event.namespace === 'fx' && event.state === 'connected',
    );
    expect(connected).toMatchObject({
      server: {
        name: 'toolplane-fixture',
        version: '1.0.0',
        protocolVersion: '2025-11-25',
        era: '2025',
        capabilities: { tools: { listChanged: true }, logging: {} },
      },
    });
  });

  it('lets a failing factory fail addConnector, leaving nothing registered', () => {
    const toolkit = createToolkit({
      createConnector: () => {
        throw new ToolError('invalid_config', 'this factory takes nothing');
      },
    });
    expect(() => toolkit.addConnector(new URL('weather://x'), { namespace: 'w' })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
    expect(toolkit.connectors()).toEqual([]);
  });
});
