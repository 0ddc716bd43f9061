import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureCommand } from '@toolplane/fixtures';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import type { ApprovalDecision } from '@toolplane/toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_META_KEY } from './call-results.js';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { gatewayCommand } from './testing/gateway-command.js';
import { useHttpGateway } from './testing/http-gateway.js';

// Approval through the gateway: a destructive upstream tool asks the calling client through
// elicitation (2025: elicitation/create; 2026-07-28: an input_required round), with the official
// SDK client of each era, over HTTP and over stdio, and the call runs once or not at all.

type Era = 'legacy' | 'modern';
type Answer = (request: ElicitRequest) => ElicitResult;

const WITH_ELICITATION: ClientCapabilities = { elicitation: { form: {} } };
const clients: Client[] = [];
let counter = 0;

// Each client's current answerer, so that one connection can serve several cases.
const answerers = new Map<Client, Answer>();

function newClient(era: Era, capabilities: ClientCapabilities): Client {
  const client = new Client(
    { name: `approver-${era}`, version: '0' },
    era === 'modern'
      ? { capabilities, versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } }
      : { capabilities },
  );
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler('elicitation/create', (request) => {
      const answer = answerers.get(client);
      if (answer === undefined) throw new Error('this test did not expect an elicitation');
      return answer(request);
    });
  }
  clients.push(client);
  return client;
}

function textOf(result: unknown): string {
  const { content } = result as CallToolResult;
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function codeOf(result: unknown): unknown {
  const meta = (result as CallToolResult)._meta as Record<string, { code?: unknown }> | undefined;
  return meta?.[ERROR_META_KEY]?.code;
}

async function deleted(client: Client): Promise<string[]> {
  return JSON.parse(
    textOf(await client.callTool({ name: 'fx__deleted-items', arguments: {} })),
  ) as string[];
}

const accept: Answer = () => ({ action: 'accept', content: { approve: true } });

/** The cases every transport and era runs, given a way to connect a client. */
function approvalCases(
  connect: (era: Era, caps: ClientCapabilities, answer?: Answer) => Promise<Client>,
) {
  describe.each(['legacy', 'modern'] as const)('a %s client', (era) => {
    it('is asked with a form naming the tool, server and arguments; on accept the call runs once', async () => {
      const seen: ElicitRequest[] = [];
      const client = await connect(era, WITH_ELICITATION, (request) => {
        seen.push(request);
        return accept(request);
      });
      expect(client.getProtocolEra()).toBe(era);
      const id = `item-${era}-${++counter}\u202e`;
      const result = await client.callTool({ name: 'fx__delete-item', arguments: { id } });
      expect(result.isError).not.toBe(true);
      expect(textOf(result)).toBe(`deleted ${id}`);
      expect((await deleted(client)).filter((item) => item === id)).toHaveLength(1);
      expect(seen).toHaveLength(1);
      const params = seen[0]?.params as { message: string; mode?: string; requestedSchema: object };
      expect(params.message).toContain('"fx:delete-item" on server "fx"');
      expect(params.message).toContain(`item-${era}-${counter}\\u202e`);
      expect(params.message).not.toContain('\u202e');
      expect(params.requestedSchema).toMatchObject({ required: ['approve'] });
    });

    it.each([
      ['declines', (): ElicitResult => ({ action: 'decline' })],
      ['cancels', (): ElicitResult => ({ action: 'cancel' })],
      ['accepts without ticking approve', (): ElicitResult => ({ action: 'accept', content: {} })],
      [
        'accepts with a value of the wrong type',
        (): ElicitResult => ({ action: 'accept', content: { approve: 'yes' } }),
      ],
    ])('does not run the call when the client %s, and says why', async (_, answer) => {
      const client = await connect(era, WITH_ELICITATION, answer);
      const id = `refused-${era}-${++counter}`;
      const result = await client.callTool({ name: 'fx__delete-item', arguments: { id } });
      expect(result.isError).toBe(true);
      expect(codeOf(result)).toBe('approval_denied');
      expect(textOf(result)).toContain('approval.except');
      expect(await deleted(client)).not.toContain(id);
    });

    it('does not run the call for a client without elicitation', async () => {
      const client = await connect(era, {});
      const id = `unasked-${era}-${++counter}`;
      const result = await client.callTool({ name: 'fx__delete-item', arguments: { id } });
      expect(result.isError).toBe(true);
      expect(codeOf(result)).toBe('approval_denied');
      expect(await deleted(client)).not.toContain(id);
    });

    it('runs a read-only tool without asking', async () => {
      const asked: unknown[] = [];
      const client = await connect(era, WITH_ELICITATION, (request) => {
        asked.push(request);
        return accept(request);
      });
      const sum = await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } });
      expect(sum.structuredContent).toEqual({ sum: 3 });
      expect(asked).toEqual([]);
    });
  });
}

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

describe('approval over Streamable HTTP', () => {
  const decisions: ApprovalDecision[] = [];
  const gateway = useHttpGateway(
    useFixtureToolkit({ approval: { onDecision: (decision) => decisions.push(decision) } }),
  );

  approvalCases(async (era, capabilities, answer) => {
    const client = newClient(era, capabilities);
    if (answer !== undefined) answerers.set(client, answer);
    await client.connect(new StreamableHTTPClientTransport(gateway.url));
    return client;
  });

  it('reports each step to onDecision with the tool, server, policy and arguments hash', () => {
    const steps = decisions.filter((decision) => decision.toolId === 'fx:delete-item');
    expect(steps.map((step) => step.type)).toContain('granted');
    expect(steps.map((step) => step.type)).toContain('refused');
    for (const step of steps) {
      expect(step).toMatchObject({ server: 'fx', policy: 'destructive' });
      expect(step.argsHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });
});

describe('approval answers that come too late', () => {
  let refused: () => void = () => undefined;
  const gateway = useHttpGateway(
    useFixtureToolkit({
      approval: {
        timeoutMs: 300,
        onDecision: (decision) => {
          if (decision.type === 'refused') refused();
        },
      },
    }),
  );

  it.each(['legacy', 'modern'] as const)(
    'a %s client accepting after the timeout runs nothing',
    async (era) => {
      const timedOut = new Promise<void>((resolve) => (refused = resolve));
      const client = newClient(era, WITH_ELICITATION);
      let asked = 0;
      // The first request is answered accept once the gateway has refused the call; any request
      // after it (a 2026 retry that asks afresh) is declined.
      client.setRequestHandler('elicitation/create', async () => {
        if (++asked > 1) return { action: 'decline' };
        await timedOut;
        return { action: 'accept', content: { approve: true } };
      });
      await client.connect(new StreamableHTTPClientTransport(gateway.url));
      const id = `late-${era}-${++counter}`;
      const result = await client.callTool({ name: 'fx__delete-item', arguments: { id } });
      expect(result.isError).toBe(true);
      expect(codeOf(result)).toBe('approval_denied');
      expect(await deleted(client)).not.toContain(id);
    },
  );
});

describe('approval over stdio', () => {
  const { command, args } = gatewayCommand(
    [{ namespace: 'fx', source: fixtureCommand('stdio') }],
    {},
    'stdio',
    { approval: { destructive: true } },
  );
  // stdio is one connection per process: one gateway (and fixture) per era and capability,
  // shared by the cases, each of which sets the answer its client gives.
  const connected = new Map<string, Promise<Client>>();
  approvalCases((era, capabilities, answer) => {
    const key = `${era}:${capabilities.elicitation === undefined ? 'none' : 'form'}`;
    let client = connected.get(key);
    if (client === undefined) {
      const fresh = newClient(era, capabilities);
      client = fresh
        .connect(new StdioClientTransport({ command, args, stderr: 'inherit' }))
        .then(() => fresh);
      connected.set(key, client);
    }
    return client.then((ready) => {
      if (answer !== undefined) answerers.set(ready, answer);
      return ready;
    });
  });
});
