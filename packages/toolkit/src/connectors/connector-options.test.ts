import { fixtureCommand } from '@toolplane/fixtures';
import { errorMessageOf } from '@toolplane/toolmodel/testing';
import { describe, expect, it } from 'vitest';
import { runToolkit } from '../testing/run-toolkit.js';
import { createToolkit } from '../toolkit/toolkit.js';
import { createConnector } from './connector.js';

const stdio = { command: process.execPath, args: ['--version'] };

/** The message of the `invalid_config` that `build` throws. */
const messageOf = (build: () => unknown): string => errorMessageOf(build, 'invalid_config');

// From JavaScript, a spread of a wider object, or a key taken from another MCP client, these
// used to be ignored without a word, and a duration a timer cannot keep fired at once: every
// connection attempt timed out, a ping went out every millisecond, a lost server was spawned
// again in a tight loop.
describe('connector options', () => {
  it('refuse an unknown key, with the nearest one', () => {
    expect(messageOf(() => createConnector(stdio, { conectTimeoutMs: 5 } as never))).toBe(
      'createConnector: unknown option "conectTimeoutMs"; did you mean "connectTimeoutMs"?',
    );
    expect(
      messageOf(() => createToolkit({ connectorDefaults: { timeout: 5_000 } as never })),
    ).toMatch(/^connectorDefaults: unknown option "timeout"; known options: clientInfo, era,/);
    expect(
      messageOf(() => createToolkit({ connectorDefaults: { backoff: { initial: 5 } } as never })),
    ).toBe('connectorDefaults.backoff: unknown option "initial"; did you mean "initialDelayMs"?');
  });

  it('refuse a duration that is not above 0, not a number, or past what a timer keeps', () => {
    const cases: [() => unknown, string][] = [
      [() => createConnector(stdio, { connectTimeoutMs: -1 }), 'createConnector.connectTimeoutMs'],
      [
        () => createConnector(stdio, { startTimeoutMs: Number.NaN }),
        'createConnector.startTimeoutMs',
      ],
      [
        () => createConnector(stdio, { eraProbeTimeoutMs: 2 ** 31 }),
        'createConnector.eraProbeTimeoutMs',
      ],
      [
        () => createToolkit({ connectorDefaults: { pingIntervalMs: Number.NaN } }),
        'connectorDefaults.pingIntervalMs',
      ],
      [
        () => createToolkit({ connectorDefaults: { authRecheckMs: -5 } }),
        'connectorDefaults.authRecheckMs',
      ],
      [
        () => createToolkit({ connectorDefaults: { backoff: { initialDelayMs: 0 } } }),
        'connectorDefaults.backoff.initialDelayMs',
      ],
      [
        () => createToolkit({ connectorDefaults: { backoff: { maxDelayMs: 1e12 } } }),
        'connectorDefaults.backoff.maxDelayMs',
      ],
      [
        () => createToolkit({ sessionConnections: { idleMs: Infinity } }),
        'sessionConnections.idleMs',
      ],
      [
        () => createToolkit().addConnector(stdio, { startTimeoutMs: '60s' as never }),
        'addConnector startTimeoutMs',
      ],
    ];
    for (const [build, what] of cases) {
      expect(messageOf(build)).toMatch(
        new RegExp(`^${what.replaceAll('.', '\\.')} must be a number of milliseconds`),
      );
    }
  });

  it('take 0 where it turns something off, and every duration a timer keeps', () => {
    expect(() =>
      createToolkit({
        connectorDefaults: {
          pingIntervalMs: 0,
          authRecheckMs: 0,
          connectTimeoutMs: 2 ** 31 - 1,
          backoff: { initialDelayMs: 1, maxDelayMs: 60_000 },
        },
        sessionConnections: { max: 4, idleMs: 60_000 },
      }),
    ).not.toThrow();
  });

  it('tell addConnector where a setting for every server goes', () => {
    const toolkit = createToolkit();
    expect(messageOf(() => toolkit.addConnector(stdio, { pingIntervalMs: 1_000 } as never))).toBe(
      'addConnector: unknown option "pingIntervalMs"; pingIntervalMs is set for every server: createToolkit({ connectorDefaults: { pingIntervalMs } })',
    );
    expect(
      messageOf(() => toolkit.addConnector(stdio, { onEvent: () => undefined } as never)),
    ).toBe(
      'addConnector: unknown option "onEvent"; listen to every server with toolkit.onEvent(listener)',
    );
    expect(messageOf(() => toolkit.addConnector(stdio, { namepsace: 'x' } as never))).toBe(
      'addConnector: unknown option "namepsace"; did you mean "namespace"?',
    );
    // Nothing was added by the refused calls.
    expect(toolkit.connectors()).toEqual([]);
    expect(messageOf(() => createToolkit({ connectorDefaults: { namespace: 'x' } as never }))).toBe(
      'connectorDefaults: unknown option "namespace"; a namespace is per server: toolkit.addConnector(source, { namespace })',
    );
    expect(messageOf(() => createToolkit({ sessionConnections: { idle: 5 } as never }))).toBe(
      'sessionConnections: unknown option "idle"; did you mean "idleMs"?',
    );
  });
});

describe('addConnector lists', () => {
  it('mirrors only the lists one server is added with, as the README says', async () => {
    const toolkit = createToolkit();
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'lean', lists: ['tools'] });
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'full' });
    const { stop } = await runToolkit(toolkit);
    try {
      const prompts = (await toolkit.list({ type: 'prompt', limit: 100 })).prompts;
      expect(prompts.map((prompt) => `${prompt.namespace}:${prompt.name}`)).toEqual(['full:echo']);
      const tools = (await toolkit.list({ type: 'tool', limit: 100 })).tools.map(
        (tool) => `${tool.namespace}:${tool.name}`,
      );
      expect(tools).toContain('lean:echo');
      expect(tools).toContain('full:echo');
    } finally {
      await stop();
    }
  });

  it('refuses lists no server offers before anything is added', () => {
    const toolkit = createToolkit();
    expect(messageOf(() => toolkit.addConnector(stdio, { lists: ['tool'] as never }))).toMatch(
      /did you mean "tools"/,
    );
    expect(toolkit.connectors()).toEqual([]);
  });
});
