import {
  McpServer,
  type ElicitRequest,
  type ElicitRequestFormParams,
  type ElicitResult,
} from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CALLER_META_KEY, createConnector, type Connector } from './connector.js';
import { withElicitationDefaults } from './elicitation-defaults.js';
import { serveMcpHttp, type ServedMcp } from './testing/serve-mcp-http.js';

const profileSchema: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'Ada' },
    age: { type: 'integer', default: 36 },
    score: { type: 'number', default: 9.5 },
    plan: { type: 'string', enum: ['free', 'pro'], default: 'free' },
    verified: { type: 'boolean', default: false },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, default: ['a', 'b'] },
    note: { type: 'string' },
  },
};

const profileDefaults = {
  name: 'Ada',
  age: 36,
  score: 9.5,
  plan: 'free',
  verified: false,
  tags: ['a', 'b'],
};

function ask(requestedSchema: unknown): ElicitRequest {
  return {
    method: 'elicitation/create',
    params: { message: 'Who are you?', requestedSchema },
  } as ElicitRequest;
}

describe('withElicitationDefaults', () => {
  it('fills every field an accepted form left out with its default', () => {
    const result = withElicitationDefaults(ask(profileSchema), { action: 'accept', content: {} });
    expect(result).toEqual({ action: 'accept', content: profileDefaults });
  });

  it('treats an accept without content as an empty form', () => {
    const result = withElicitationDefaults(ask(profileSchema), { action: 'accept' });
    expect(result.content).toEqual(profileDefaults);
  });

  it("keeps the user's answers, falsy ones too", () => {
    const content = { name: '', age: 0, verified: true, tags: [] };
    const result = withElicitationDefaults(ask(profileSchema), { action: 'accept', content });
    expect(result.content).toEqual({ ...profileDefaults, ...content });
  });

  it('leaves declined, cancelled and URL-mode answers as they are', () => {
    const declined: ElicitResult = { action: 'decline' };
    expect(withElicitationDefaults(ask(profileSchema), declined)).toBe(declined);
    const cancelled: ElicitResult = { action: 'cancel' };
    expect(withElicitationDefaults(ask(profileSchema), cancelled)).toBe(cancelled);
    const url = {
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Sign in', url: 'https://example.com', elicitationId: 'e1' },
    } as ElicitRequest;
    const accepted: ElicitResult = { action: 'accept' };
    expect(withElicitationDefaults(url, accepted)).toBe(accepted);
  });

  it('skips defaults no answer could carry', () => {
    const schema = {
      type: 'object',
      properties: {
        object: { type: 'string', default: { nested: true } },
        none: { type: 'string', default: null },
        infinite: { type: 'number', default: Number.POSITIVE_INFINITY },
        mixed: { type: 'array', default: ['a', 1] },
        notASchema: 'text',
      },
    };
    const answer: ElicitResult = { action: 'accept', content: { kept: 'yes' } };
    expect(withElicitationDefaults(ask(schema), answer)).toBe(answer);
  });

  it('fills a field named __proto__ as a field, not a prototype', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","default":"x"}}}',
    ) as unknown;
    const { content } = withElicitationDefaults(ask(schema), { action: 'accept', content: {} });
    expect(Object.getPrototypeOf(content)).toBe(Object.prototype);
    expect(Object.hasOwn(content ?? {}, '__proto__')).toBe(true);
    expect(JSON.stringify(content)).toBe('{"__proto__":"x"}');
  });

  it('keeps every answer and adds exactly the missing defaults', () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.array(fc.string()),
    );
    const name = fc.string({ minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(fc.dictionary(name, value), fc.dictionary(name, value), (defaults, given) => {
        const properties = Object.fromEntries(
          Object.entries(defaults).map(([key, fallback]) => [key, { default: fallback }]),
        );
        const schema = { type: 'object', properties };
        const { content } = withElicitationDefaults(ask(schema), {
          action: 'accept',
          content: given,
        });
        expect(content).toEqual({ ...defaults, ...given });
      }),
    );
  });
});

/** A server whose `profile` tool asks for a profile and reports what came back. */
function profileServer(): McpServer {
  const server = new McpServer({ name: 'profiles', version: '1.0.0' });
  server.registerTool('profile', { description: 'Asks who you are.' }, async (ctx) => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era request, under test
    const answer = await ctx.mcpReq.elicitInput({
      message: 'Who are you?',
      requestedSchema: profileSchema,
    });
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- what a 2025 client advertised, under test
    const advertised = server.server.getClientCapabilities()?.elicitation;
    return { content: [{ type: 'text', text: JSON.stringify({ advertised, answer }) }] };
  });
  return server;
}

describe('Connector elicitation defaults', () => {
  let served: ServedMcp | undefined;
  let connector: Connector | undefined;
  afterEach(async () => {
    await connector?.close();
    await served?.close();
  });

  async function askProfile(answer: ElicitResult): Promise<unknown> {
    served = await serveMcpHttp({ server: profileServer });
    connector = createConnector(served.url, {
      upstreamRequests: () => ({
        capabilities: { elicitation: true },
        handle: () => Promise.resolve(answer),
      }),
    });
    connector.start();
    await connector.ready();
    const result = await connector.client?.callTool({
      name: 'profile',
      arguments: {},
      _meta: { [CALLER_META_KEY]: 'me' },
    });
    const [block] = (result?.content ?? []) as { text: string }[];
    return JSON.parse(block?.text ?? 'null');
  }

  it('advertises applyDefaults and fills the defaults of an accept without content', async () => {
    expect(await askProfile({ action: 'accept' })).toEqual({
      advertised: { form: { applyDefaults: true } },
      answer: { action: 'accept', content: profileDefaults },
    });
  });

  it('sends the user answers with the defaults of the fields they left out', async () => {
    const reply = await askProfile({ action: 'accept', content: { name: 'Grace', note: 'hi' } });
    expect(reply).toMatchObject({
      answer: { action: 'accept', content: { ...profileDefaults, name: 'Grace', note: 'hi' } },
    });
  });
});
