// @modelcontextprotocol/server-everything behind a gateway in tests (its command is
// `everythingCommand` of @toolplane/fixtures), and what a capable client sees of its sampling and
// elicitation tools, which it registers only for a client that declared those capabilities when
// it connected (so what a gateway in front of it shows of them tells whether the upstream learned
// what the gateway's clients can do).
import { Client, type CallToolResult, type Transport } from '@modelcontextprotocol/client';
import { everythingCommand } from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';
import { serveHttp } from '../http/serve.js';

/** A gateway in front of server-everything, ready. */
export interface EverythingGateway {
  /** Its Streamable HTTP endpoint, where server-everything's names are unprefixed. */
  readonly url: URL;
  /** Closes the gateway and stops the toolkit (ending server-everything). */
  close(): Promise<void>;
}

/**
 * Serves a toolkit whose one connector is server-everything over stdio (namespace `everything`,
 * transparent) over HTTP on 127.0.0.1, once the connector is ready.
 */
export async function serveEverything(): Promise<EverythingGateway> {
  const toolkit = createToolkit();
  toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
  const running = await runToolkit(toolkit);
  const gateway = await serveHttp(toolkit, { port: 0, transparent: 'everything' });
  return {
    url: gateway.url,
    close: async () => {
      await gateway.close();
      await running.stop();
    },
  };
}

/** server-everything's tools that need the client's sampling and elicitation capabilities. */
export const GATED_TOOLS = ['trigger-sampling-request', 'trigger-elicitation-request'] as const;

/** What a sampling- and elicitation-capable client saw of the gated tools through a gateway. */
export interface GatedToolsSeen {
  /** Every tool name the gateway listed. */
  readonly names: readonly string[];
  /** The text of `trigger-sampling-request`'s result: the client's answer should be in it. */
  readonly sampled: string;
  /** The text of `trigger-elicitation-request`'s result: the client's answer should be in it. */
  readonly elicited: string;
  /** The requests the client was sent, in order. */
  readonly asked: readonly string[];
}

function text(result: unknown): string {
  return (result as CallToolResult).content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n');
}

/**
 * Connects a client that can sample and elicit to a gateway over `transport` (server-everything's
 * tools unprefixed there), lists the tools and calls both gated ones; the client answers sampling with
 * `sampled <tag>` and elicitation with the name `elicited <tag>`. A call that fails is reported in
 * its text rather than thrown, so a test can say what it saw.
 */
export async function exerciseGatedTools(
  transport: Transport,
  tag: string,
): Promise<GatedToolsSeen> {
  const client = new Client(
    { name: 'gated-tools', version: '0.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  client.setRequestHandler('sampling/createMessage', () => {
    asked.push('sampling');
    return { role: 'assistant', model: 'test', content: { type: 'text', text: `sampled ${tag}` } };
  });
  client.setRequestHandler('elicitation/create', () => {
    asked.push('elicitation');
    return { action: 'accept', content: { name: `elicited ${tag}` } };
  });
  await client.connect(transport);
  const call = (name: string, args: Record<string, unknown>): Promise<string> =>
    client.callTool({ name, arguments: args }).then(text, (error: unknown) => String(error));
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    const sampled = await call('trigger-sampling-request', { prompt: 'hello' });
    const elicited = await call('trigger-elicitation-request', {});
    return { names, sampled, elicited, asked };
  } finally {
    await client.close();
  }
}
