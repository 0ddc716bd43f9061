import { createIndex } from '@toolplane/toolindex';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { exposeTools } from './exposed.js';
import { outcomeText, type CallOutcome } from './outcomes.js';
import { callThrough } from './source.js';
import { runCalls } from './turn.js';

// Arguments an SDK parsed before the adapter saw them (Anthropic's and Gemini's replies, the AI
// SDK, LangChain): an integer past 2^53 - 1 where the schema asks for an integer may have been
// rounded already, and is refused; a large number where it asks for a number is a float, and
// passes.

const seen: unknown[] = [];
const local = createLocalRegistry().register('take', (args) => {
  seen.push(args);
  return 'taken';
});
const index = createIndex();
index.registerTool(
  {
    namespace: 'fx',
    name: 'take',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        amount: { type: 'number' },
        ids: { type: 'array', items: { type: ['integer', 'null'] } },
        user: { type: 'object', properties: { 'id/x': { anyOf: [{ type: 'integer' }] } } },
        anything: {},
      },
    },
  },
  { kind: 'local', local: { name: 'take' } },
);
const source = { index, runner: createRunner({ index, local }) };
const ROUNDED = 1790012345678901200;

async function refusal(args: Record<string, unknown>): Promise<string | undefined> {
  seen.length = 0;
  try {
    await callThrough(source, 'fx:take', args, {});
    expect(seen).toHaveLength(1);
    return undefined;
  } catch (error) {
    expect(error).toMatchObject({ code: 'invalid_argument', toolId: 'fx:take' });
    expect(seen).toHaveLength(0);
    return (error as Error).message;
  }
}

describe('callThrough with parsed arguments', () => {
  it('refuses an integer past 2^53 - 1 where the schema asks for an integer, naming where', async () => {
    expect(await refusal({ id: ROUNDED })).toMatch(
      /^the integer 1790012345678901200 at \/id is past 2\^53 - 1, where a number may already have been rounded/,
    );
    expect(await refusal({ ids: [1, null, -ROUNDED] })).toContain('at /ids/2 ');
    expect(await refusal({ user: { 'id/x': ROUNDED } })).toContain('at /user/id~1x ');
  });

  it('passes safe integers, large numbers where a number is asked for, and unschema’d values', async () => {
    expect(await refusal({ id: Number.MAX_SAFE_INTEGER, ids: [1, 2] })).toBeUndefined();
    expect(await refusal({ amount: 6.02e23 })).toBeUndefined();
    expect(await refusal({ anything: ROUNDED })).toBeUndefined();
  });

  it('answers the model with the refusal in a turn whose arguments came parsed', async () => {
    const exposed = exposeTools(source, 'anthropic');
    const name = exposed.tools[0]?.name ?? '';
    const [outcome] = await runCalls(
      source,
      [{ callId: 'a', name, arguments: { id: ROUNDED } }],
      exposed,
    );
    expect(outcome).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(outcomeText(outcome as CallOutcome)).toContain('1790012345678901200 at /id');
  });
});
