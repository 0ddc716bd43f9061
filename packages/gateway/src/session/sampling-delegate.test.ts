/* eslint-disable @typescript-eslint/no-deprecated -- 2025-era features (logging, sampling, roots,
   initialize-scoped client identity), bridged for as long as clients and servers speak them */
import {
  Client,
  StreamableHTTPClientTransport,
  type CreateMessageRequestParams,
} from '@modelcontextprotocol/client';
import { createToolkit, defineTool, ToolError } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveHttp, type HttpGateway } from '../http/serve.js';
import { createSamplingDelegate } from './sampling-delegate.js';

const toolkit = createToolkit({
  delegate: createSamplingDelegate(),
  prompts: [
    {
      name: 'haiku',
      systemPrompt: 'You write haiku about {{ topic }}.',
      model: 'claude-haiku-4-5',
      maxTokens: 64,
      input: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
      template: 'Write a haiku about {{ topic }}.',
    },
  ],
});
toolkit.addTool(
  defineTool({
    name: 'write_haiku',
    description: 'Writes a haiku with the haiku prompt.',
    input: z.object({ topic: z.string() }),
    run: async ({ topic }) => {
      const answer = await toolkit.call('builtin:haiku', { topic });
      return answer?.text ?? '';
    },
  }),
);

async function connect(url: URL, sampling: boolean): Promise<Client> {
  const client = new Client(
    { name: 'session', version: '0.0.0' },
    { capabilities: sampling ? { sampling: {} } : {} },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

describe('createSamplingDelegate', () => {
  let gateway: HttpGateway;
  const clients: Client[] = [];
  beforeAll(async () => {
    gateway = await serveHttp(toolkit, { port: 0 });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await gateway.close();
    await toolkit.close();
  });

  it("runs a prompt on the calling client's model with its system prompt, model and max tokens", async () => {
    const client = await connect(gateway.url, true);
    clients.push(client);
    const asked: CreateMessageRequestParams[] = [];
    client.setRequestHandler('sampling/createMessage', (request) => {
      asked.push(request.params);
      return {
        role: 'assistant',
        model: 'claude-haiku-4-5',
        content: { type: 'text', text: 'Old pond, frog jumps in' },
      };
    });
    const result = await client.callTool({
      name: 'builtin__write_haiku',
      arguments: { topic: 'frogs' },
    });
    expect(result.isError).toBeUndefined();
    expect(JSON.stringify(result.content)).toContain('Old pond, frog jumps in');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      systemPrompt: 'You write haiku about frogs.',
      maxTokens: 64,
      modelPreferences: { hints: [{ name: 'claude-haiku-4-5' }] },
      messages: [{ role: 'user', content: { type: 'text', text: 'Write a haiku about frogs.' } }],
    });
  });

  it('fails the tool call when the client does not support sampling', async () => {
    const client = await connect(gateway.url, false);
    clients.push(client);
    const result = await client.callTool({
      name: 'builtin__write_haiku',
      arguments: { topic: 'frogs' },
    });
    expect(result.isError).toBe(true);
    // The builtin's failure: it is the tool that failed, because its prompt could not run.
    expect(result._meta?.['io.toolplane/error']).toMatchObject({ code: 'execution' });
  });

  it('throws no_delegate for a prompt run outside a gateway call', async () => {
    await expect(toolkit.call('builtin:haiku', { topic: 'frogs' })).rejects.toSatisfy(
      (error) => ToolError.isInstance(error) && error.code === 'no_delegate',
    );
  });
});
