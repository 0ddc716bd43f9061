import {
  childPids,
  fixtureCommand,
  isAlive,
  recordEvents,
  startHttpFixture,
  startRecordingProxy,
  type FixtureMode,
  type HttpFixture,
} from '@toolplane/fixtures';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConnector, type Connector, type ConnectorEvent } from './connector.js';
import type { ConnectorOptions, ConnectorSource } from './connector-types.js';

const connectors: Connector[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((connector) => connector.close()));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.close()));
});

function start(source: ConnectorSource, options: ConnectorOptions = {}) {
  const events = recordEvents<ConnectorEvent>();
  const connector = createConnector(source, { ...options, onEvent: events.push });
  connectors.push(connector);
  connector.start();
  return { connector, events };
}

async function http(mode: FixtureMode): Promise<URL> {
  const fixture = await startHttpFixture({ server: fixtureCommand(mode) });
  fixtures.push(fixture);
  return fixture.url;
}

describe('Connector era negotiation', () => {
  it.each([
    ['stdio-2026', '2026'],
    ['stdio-dual', '2026'],
    ['stdio', '2025'],
    ['http-2026', '2026'],
    ['http-dual', '2026'],
    ['http', '2025'],
    ['http-stateless', '2025'],
  ] as const)('auto speaks the best era %s offers: %s', async (mode, era) => {
    const source = mode.startsWith('http') ? await http(mode) : fixtureCommand(mode);
    const { connector } = start(source);
    await connector.ready();
    expect(connector.eraSetting).toBe('auto');
    expect(connector.era).toBe(era);
    expect(connector.server?.protocolVersion).toBe(era === '2026' ? '2026-07-28' : '2025-11-25');
    expect(connector.lists.tools.map((tool) => tool.name)).toContain('add');
  });

  it('takes a stdio server that never answers the probe for a 2025 one, within the bound', async () => {
    const { connector } = start(fixtureCommand('stdio-silent'), { eraProbeTimeoutMs: 300 });
    await connector.ready();
    expect(connector.era).toBe('2025');
    expect(connector.lists.tools.map((tool) => tool.name)).toContain('add');
  });

  it('abandons the probe of a silent server when closed, ending its child', async () => {
    // The probe would wait 60 s; the test's own 15 s limit fails it if close waits for that.
    const { connector, events } = start(fixtureCommand('stdio-silent'), {
      eraProbeTimeoutMs: 60_000,
      connectTimeoutMs: 60_000,
    });
    await events.waitFor((event) => event.type === 'state_change' && event.state === 'connecting');
    await vi.waitFor(() => {
      expect(childPids('serve-fixture').length).toBeGreaterThan(0);
    });
    const [pid] = childPids('serve-fixture');
    await connector.close();
    expect(connector.state).toBe('disconnected');
    expect(isAlive(pid ?? 0)).toBe(false);
  });

  it('pins 2025 against a server that speaks both', async () => {
    const { connector } = start(fixtureCommand('stdio-dual'), { era: '2025' });
    await connector.ready();
    expect(connector.era).toBe('2025');
  });

  it('pins 2026 against a server that speaks both, and fails against a 2025-only one', async () => {
    const dual = start(await http('http-dual'), { era: '2026' });
    await dual.connector.ready();
    expect(dual.connector.era).toBe('2026');
    const legacy = start(fixtureCommand('stdio'), { era: '2026', backoff: { maxDelayMs: 50 } });
    await expect(legacy.connector.ready()).rejects.toMatchObject({
      code: 'connector_unavailable',
    });
    expect(legacy.connector.era).toBeUndefined();
  });

  it('refuses an era it does not know', () => {
    expect(() => createConnector(fixtureCommand('stdio'), { era: '2024' as never })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
  });

  it('speaks 2026 with a 2026-only stdio server that answers the probe after its bound', async () => {
    // A 1 ms bound makes every start "slow", as a loaded machine or a cold npx start does: the
    // probe's answer comes late, the 2025 opening is refused, and that refusal names 2026.
    const { connector } = start(fixtureCommand('stdio-2026'), { eraProbeTimeoutMs: 1 });
    await connector.ready();
    expect(connector.era).toBe('2026');
    expect(connector.server?.protocolVersion).toBe('2026-07-28');
    expect(connector.lists.tools.map((tool) => tool.name)).toContain('add');
  });

  it('reports the server info on the connected state change', async () => {
    const { connector, events } = start(fixtureCommand('stdio-2026'));
    await connector.ready();
    const connected = await events.waitFor(
      (event) => event.type === 'state_change' && event.state === 'connected',
    );
    expect(connected).toMatchObject({
      server: {
        name: 'toolplane-fixture',
        version: '1.0.0',
        protocolVersion: '2026-07-28',
        era: '2026',
        capabilities: { tools: { listChanged: true } },
      },
    });
  });
});

describe('Connector era memory', () => {
  it('skips the probe on a reconnect, and probes again when what it remembered fails', async () => {
    const dual = await startHttpFixture({ server: fixtureCommand('http-dual') });
    fixtures.push(dual);
    const target = { url: dual.url };
    const proxy = await startRecordingProxy(target);
    try {
      const { connector, events } = start(proxy.url, { backoff: { maxDelayMs: 20 } });
      await connector.ready();
      expect(connector.era).toBe('2026');
      const probes = () => proxy.methods.filter((method) => method === 'server/discover').length;
      expect(probes()).toBe(1);

      const reconnected = (from: number) =>
        events.waitFor((event) => event.type === 'state_change' && event.state === 'connected', {
          from,
        });
      let seen = events.events.length;
      await connector.client?.close();
      await reconnected(seen);
      expect(connector.era).toBe('2026');
      expect(probes()).toBe(1);

      // The upstream is replaced by a 2025-only one: the remembered era fails, so it probes.
      const legacy = await startHttpFixture({ server: fixtureCommand('http') });
      fixtures.push(legacy);
      target.url = legacy.url;
      seen = events.events.length;
      await connector.client?.close();
      await reconnected(seen);
      expect(connector.era).toBe('2025');
      expect(probes()).toBe(2);
    } finally {
      await Promise.all(connectors.splice(0).map((connector) => connector.close()));
      await proxy.close();
    }
  });
});
