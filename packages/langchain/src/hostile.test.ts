import { ToolMessage } from '@langchain/core/messages';
import type { ToolSource } from '@toolplane/adapter-kit';
import { localSource } from '@toolplane/test-support/local-source';
import { createIndex } from '@toolplane/toolindex';
import { EXPOSED_NAME_PATTERN, type Tool } from '@toolplane/toolmodel';
import { mcpToolResult } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_OUTPUT_CHARS, type ToolplaneArtifact } from './results.js';
import { ScriptedChatModel, runToolLoop } from './testing/scripted-model.js';
import { toLangChainTools } from './tools.js';

const object = { type: 'object' } as const;

/** One scripted turn calling `name` with `args` in the tool loop; the ToolMessage it answered. */
async function callOnce(
  source: ToolSource,
  name: string,
  args: Record<string, unknown>,
  maxOutputChars?: number,
) {
  const tools = await toLangChainTools(
    source,
    maxOutputChars === undefined ? {} : { maxOutputChars },
  );
  const model = new ScriptedChatModel([{ toolCalls: [{ id: 'x', name, args }] }, { text: 'ok' }]);
  const messages = await runToolLoop(model, tools, 'go');
  const message = messages.find((m) => ToolMessage.isInstance(m));
  if (message === undefined) throw new Error('no tool message');
  return { message, artifact: message.artifact as ToolplaneArtifact, model };
}

describe('toLangChainTools with hostile tools', () => {
  it('gives names that collide once sanitised distinct legal names, each calling its own tool', async () => {
    const source = localSource([
      { tool: { namespace: 'a', name: 'b.c', inputSchema: object }, run: () => 'dotted' },
      { tool: { namespace: 'a', name: 'b_c', inputSchema: object }, run: () => 'underscored' },
      { tool: { namespace: 'a__b', name: 'c', inputSchema: object }, run: () => 'namespaced' },
      { tool: { namespace: 'a', name: 'b__c', inputSchema: object }, run: () => 'doubled' },
    ]);
    const names = (await toLangChainTools(source)).map((tool) => tool.name);
    expect(new Set(names).size).toBe(4);
    expect(names).not.toContain('a__b__c');
    for (const name of names) expect(name).toMatch(EXPOSED_NAME_PATTERN);
    const answers = new Set<unknown>();
    for (const name of names) answers.add((await callOnce(source, name, {})).message.content);
    expect(answers).toEqual(new Set(['dotted', 'underscored', 'namespaced', 'doubled']));
  });

  it('shortens the longest legal IDs (64 + 128 characters) to 64, stably; 300 characters never register', async () => {
    const long = { namespace: 'n'.repeat(64), name: 'x'.repeat(128), inputSchema: object };
    const longer = { namespace: 'n'.repeat(64), name: `${'x'.repeat(127)}y`, inputSchema: object };
    const source = localSource([
      { tool: long, run: () => 'long' },
      { tool: longer, run: () => 'longer' },
    ]);
    const first = (await toLangChainTools(source)).map((tool) => tool.name);
    expect(first).toHaveLength(2);
    for (const name of first) expect(name).toMatch(EXPOSED_NAME_PATTERN);
    expect((await toLangChainTools(source)).map((tool) => tool.name)).toEqual(first);
    const tools = await toLangChainTools(source);
    const longerTool = tools.find((tool) => tool.toolId.endsWith('y'));
    const { message } = await callOnce(source, longerTool?.name ?? '', {});
    expect(message.content).toBe('longer');
    // A 300-character name is refused by the index, so no adapter ever has to name it.
    const index = createIndex();
    expect(() =>
      index.registerTool(
        { name: 'z'.repeat(300), inputSchema: object },
        { kind: 'local', local: { name: 'h' } },
      ),
    ).toThrow(expect.objectContaining({ code: 'invalid_tool' }) as Error);
  });

  it('passes a recursive ($ref) schema to the provider as it is, and refuses an object cycle at registration', async () => {
    const tree = {
      type: 'object' as const,
      properties: { children: { type: 'array', items: { $ref: '#' } }, label: { type: 'string' } },
    };
    const source = localSource([
      { tool: { namespace: 't', name: 'tree', inputSchema: tree }, run: (args) => args },
    ]);
    const { model, artifact } = await callOnce(source, 't__tree', {
      label: 'root',
      children: [{ label: 'leaf', children: [] }],
    });
    expect(model.turns[0]?.tools[0]?.function.parameters).toEqual(tree);
    expect(artifact.structuredContent).toMatchObject({ label: 'root' });
    // The runner validates through the $ref: a bad leaf is the model's to correct.
    const bad = await callOnce(source, 't__tree', { children: [{ label: 7 }] });
    expect(bad.message.status).toBe('error');
    expect(bad.artifact.code).toBe('validation');

    const cyclic: Tool['inputSchema'] = { type: 'object', properties: {} };
    (cyclic.properties as Record<string, unknown>).self = cyclic;
    expect(() =>
      localSource([
        { tool: { namespace: 't', name: 'cyclic', inputSchema: cyclic }, run: () => 'never' },
      ]),
    ).toThrow(expect.objectContaining({ code: 'invalid_tool' }) as Error);
  });

  it('keeps a __proto__ property a plain property, and pollutes nothing', async () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"x":{"type":"number"}},"additionalProperties":false}',
    ) as Tool['inputSchema'];
    let seen: unknown;
    const source = localSource([
      {
        tool: { namespace: 'p', name: 'proto', inputSchema: schema },
        run: (args) => {
          seen = args;
          return 'ok';
        },
      },
    ]);
    const offered = await callOnce(source, 'p__proto', { x: 1 });
    expect(JSON.stringify(offered.model.turns[0]?.tools[0]?.function.parameters)).toContain(
      '"__proto__":{"type":"string"}',
    );
    expect(seen).toEqual({ x: 1 });

    // A model's __proto__ key (as JSON.parse makes it: an own property) reaches the runner as
    // data, is validated as such, and changes no prototype.
    seen = undefined;
    const own = JSON.parse('{"__proto__":"x","x":2}') as Record<string, unknown>;
    const { message } = await callOnce(source, 'p__proto', own);
    expect(message.status).toBe('success');
    expect(Object.keys(seen as object)).toEqual(['__proto__', 'x']);
    expect(Object.getPrototypeOf(seen)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).x).toBeUndefined();

    const wrong = JSON.parse('{"__proto__":{"polluted":true},"x":3}') as Record<string, unknown>;
    const refused = await callOnce(source, 'p__proto', wrong);
    expect(refused.message.status).toBe('error');
    expect(refused.artifact.code).toBe('validation');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('bounds a 10 MB result to maxOutputChars for the model, and keeps it whole in the artifact', async () => {
    const big = 'a'.repeat(10_000_000);
    const source = localSource([
      { tool: { namespace: 'b', name: 'big', inputSchema: object }, run: () => big },
      {
        tool: { namespace: 'b', name: 'picture', inputSchema: object },
        run: () =>
          mcpToolResult({
            content: [
              { type: 'text', text: 'a picture:' },
              { type: 'image', data: 'A'.repeat(1_000), mimeType: 'image/png' },
            ],
          }),
      },
    ]);
    const { message, artifact } = await callOnce(source, 'b__big', {});
    const content = message.content as string;
    expect(content.length).toBeLessThan(DEFAULT_MAX_OUTPUT_CHARS + 200);
    expect(content).toContain(
      `${String(10_000_000 - DEFAULT_MAX_OUTPUT_CHARS)} of 10000000 characters left out`,
    );
    expect(artifact.content[0]).toMatchObject({ type: 'text', text: big });

    // With media for the model, an image that does not fit is replaced by a note, not cut.
    const tools = await toLangChainTools(source, { media: 'content', maxOutputChars: 500 });
    const picture = tools.find((tool) => tool.name === 'b__picture');
    const small = await picture?.invoke({
      id: 'p',
      name: 'b__picture',
      args: {},
      type: 'tool_call',
    });
    expect(small?.content).toEqual([
      { type: 'text', text: 'a picture:' },
      {
        type: 'text',
        text: '[toolplane: image (image/png, 1000 base64 characters) left out: over the output limit]',
      },
    ]);
  });

  it('bounds the notes of a result of many small blocks: those past the bound get one', async () => {
    const source = localSource([
      {
        tool: { namespace: 'b', name: 'sounds', inputSchema: object },
        run: () =>
          mcpToolResult({
            content: Array.from({ length: 50_000 }, () => ({
              type: 'audio' as const,
              data: '',
              mimeType: 'audio/wav',
            })),
          }),
      },
    ]);
    // One note each ("[toolplane: audio (audio/wav) in the artifact]") was 2.4 million characters.
    const { message, artifact } = await callOnce(source, 'b__sounds', {}, 1_000);
    const content = message.content as string;
    expect(content.length).toBeLessThan(1_100);
    expect(content).toMatch(/\n\[toolplane: \d+ more blocks left out: over the output limit\]$/);
    expect(artifact.content).toHaveLength(50_000);
  });

  it('refuses to list for a cancelled signal', async () => {
    const source = localSource([
      { tool: { namespace: 'v', name: 'any', inputSchema: object }, run: () => 'ran' },
    ]);
    await expect(toLangChainTools(source, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'cancelled',
    });
  });

  it('answers arguments that are not an object as a validation error', async () => {
    const source = localSource([
      { tool: { namespace: 'v', name: 'any', inputSchema: object }, run: () => 'ran' },
    ]);
    const [tool] = await toLangChainTools(source);
    const message = await tool?.invoke({
      id: 'n',
      name: 'v__any',
      args: ['not', 'an', 'object'] as never,
      type: 'tool_call',
    });
    expect(message).toMatchObject({ status: 'error' });
    expect((message?.artifact as ToolplaneArtifact).code).toBe('validation');
  });
});

describe('toLangChainTools handed the wrong thing', () => {
  const source = localSource([
    { tool: { namespace: 'v', name: 'say', inputSchema: { type: 'object' } }, run: () => 'hi' },
  ]);

  it('refuses a source that is not a toolkit or { runner, index } with invalid_argument', async () => {
    for (const bad of [null, undefined, 42, 'toolkit', {}, { index: {} }]) {
      await expect(toLangChainTools(bad as unknown as ToolSource)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
    await expect(toLangChainTools(source, null as never)).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });

  it('refuses a maxOutputChars that would leave every result out (NaN, 0, -1, text)', async () => {
    for (const bad of [Number.NaN, 0, -1, 2.5, '100']) {
      await expect(
        toLangChainTools(source, { maxOutputChars: bad as number }),
      ).rejects.toMatchObject({ code: 'invalid_argument' });
    }
    const [say] = await toLangChainTools(source, { maxOutputChars: 10 });
    expect(await say?.invoke({})).toBe('hi');
  });
});
