import {
  Client,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
} from '@modelcontextprotocol/client';
import { createResourceServer } from '@toolplane/oauth';
import { startAuthorizationServer, type TestAuthorizationServer } from '@toolplane/oauth/testing';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { auditApprovals, createMemoryPinStore, type StoredAuditRecord } from '@toolplane/toolkit';
import type { ToolCallRecord } from './observe/observer.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { serveHttp, type HttpGateway } from './http/serve.js';
import { useHttpGateway } from './testing/http-gateway.js';

// Who the approval audit names, for a client of either era over HTTP: the caller the gateway
// verified (an OAuth subject), else the 2025 session, else `anonymous`, as the call audit line
// names it. A 2026-07-28 request has no session: its records carried no `who` at all.

type Era = 'legacy' | 'modern';
const WITH_ELICITATION: ClientCapabilities = { elicitation: { form: {} } };
const TOKEN = 'approval-audit-eras-token-0123456789';

async function connect(url: URL, era: Era, bearer: string): Promise<Client> {
  const client = new Client(
    { name: `approver-${era}`, version: '0' },
    era === 'modern'
      ? {
          capabilities: WITH_ELICITATION,
          versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
        }
      : { capabilities: WITH_ELICITATION },
  );
  client.setRequestHandler('elicitation/create', () => ({
    action: 'accept',
    content: { approve: true },
  }));
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

/** The approval records of the call of `fx:delete-item` with `id`, as `[kind, who]`. */
async function approvalsOf(
  audit: ReturnType<typeof createMemoryPinStore>,
  count: number,
): Promise<[string, string | undefined][]> {
  let records: StoredAuditRecord[] = [];
  await expect
    .poll(async () => {
      records = (await audit.listAudit()).filter((r) => r.kind.startsWith('approval.'));
      return records.length;
    })
    .toBe(count);
  return records.map((r) => [r.kind, r.who]);
}

describe('the approval audit of a gateway with a static token', () => {
  const audit = createMemoryPinStore();
  const toolkit = useFixtureToolkit({
    approval: { destructive: false, tools: ['fx:delete-item'], onDecision: auditApprovals(audit) },
  });
  const gateway = useHttpGateway(toolkit, { token: TOKEN });
  afterAll(async () => {
    await audit.close();
  });

  it('names the session of a 2025 client and anonymous for a 2026-07-28 one', async () => {
    const legacy = await connect(gateway.url, 'legacy', TOKEN);
    const session = (legacy.transport as StreamableHTTPClientTransport).sessionId;
    await legacy.callTool({ name: 'fx__delete-item', arguments: { id: 'static-legacy' } });
    await legacy.close();
    expect(await approvalsOf(audit, 2)).toEqual([
      ['approval.asked', `session:${String(session)}`],
      ['approval.granted', `session:${String(session)}`],
    ]);

    const modern = await connect(gateway.url, 'modern', TOKEN);
    await modern.callTool({ name: 'fx__delete-item', arguments: { id: 'static-modern' } });
    await modern.close();
    expect((await approvalsOf(audit, 4)).slice(2)).toEqual([
      ['approval.asked', 'anonymous'],
      ['approval.granted', 'anonymous'],
    ]);
  });
});

describe('the approval audit of a gateway with OAuth', () => {
  const audit = createMemoryPinStore();
  const toolkit = useFixtureToolkit({
    approval: { destructive: false, tools: ['fx:delete-item'], onDecision: auditApprovals(audit) },
  });
  let as: TestAuthorizationServer;
  let gateway: HttpGateway;
  const heard: ToolCallRecord[] = [];

  beforeAll(async () => {
    as = await startAuthorizationServer({ resources: {} });
    gateway = await serveHttp(toolkit, {
      port: 0,
      observe: { toolCall: (record) => heard.push(record) },
      auth: createResourceServer({
        issuer: as.issuer,
        scopes: { 'tools:admin': { namespaces: ['*'] } },
      }),
    });
  });
  afterAll(async () => {
    await gateway.close();
    await as.close();
    await audit.close();
  });

  const tokenOf = (sub: string | undefined, clientId = 'approver-client'): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return as.sign({
      iss: as.issuer,
      aud: gateway.url.href,
      ...(sub === undefined ? {} : { sub }),
      client_id: clientId,
      scope: 'tools:admin',
      iat: now,
      exp: now + 300,
    });
  };

  it.each(['legacy', 'modern'] as const)(
    'names the verified subject of a %s client as who asked and who approved',
    async (era) => {
      const client = await connect(gateway.url, era, await tokenOf(`alice-${era}`));
      await client.callTool({ name: 'fx__delete-item', arguments: { id: `oauth-${era}` } });
      await client.close();
      const records = await approvalsOf(audit, era === 'legacy' ? 2 : 4);
      expect(records.slice(-2)).toEqual([
        ['approval.asked', `subject:alice-${era}`],
        ['approval.granted', `subject:alice-${era}`],
      ]);
    },
  );

  // A client-credentials token names a client acting for itself, and no user (`sub`): such
  // callers were all `anonymous` in a 2026-07-28 record, and their 2025 session hid the client.
  it.each(['legacy', 'modern'] as const)(
    'names the client of a %s caller whose token carries no subject, in both audits',
    async (era) => {
      const client = await connect(gateway.url, era, await tokenOf(undefined, `svc-${era}`));
      await client.callTool({ name: 'fx__delete-item', arguments: { id: `client-${era}` } });
      await client.close();
      const records = await approvalsOf(audit, era === 'legacy' ? 6 : 8);
      expect(records.slice(-2)).toEqual([
        ['approval.asked', `client:svc-${era}`],
        ['approval.granted', `client:svc-${era}`],
      ]);
      expect(heard.at(-1)).toMatchObject({
        tool: 'fx:delete-item',
        subject: undefined,
        clientId: `svc-${era}`,
      });
    },
  );
});
