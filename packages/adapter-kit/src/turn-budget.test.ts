import { localSource } from '@toolplane/test-support/local-source';
import { mcpToolResult } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { outcomeText, type CallOutcome } from './outcomes.js';
import { runCalls, type RunCallsOptions, type ToolCallRequest } from './turn.js';
import { fairLevel } from './turn-budget.js';

let ran = 0;
/** Gates the `gated` tool's calls wait on, by their `id`; opened by the test in its own order. */
const gates = new Map<string, Promise<void>>();
/** The `gated` calls' IDs, in the order they finished. */
const finished: string[] = [];
const object = { type: 'object' as const };
const source = localSource([
  {
    tool: { namespace: 't', name: 'text', inputSchema: object },
    run: (args) => {
      ran++;
      return 'x'.repeat((args as { n: number }).n);
    },
  },
  {
    tool: { namespace: 't', name: 'fail', inputSchema: object },
    run: (args) => {
      throw new Error('e'.repeat((args as { n: number }).n));
    },
  },
  {
    tool: { namespace: 't', name: 'picture', inputSchema: object },
    run: (args) => {
      const { text, image } = args as { text: number; image: number };
      return mcpToolResult({
        content: [
          { type: 'text', text: 'p'.repeat(text) },
          { type: 'image', data: 'A'.repeat(image), mimeType: 'image/png' },
        ],
      });
    },
  },
  {
    tool: { namespace: 't', name: 'sound', inputSchema: object },
    run: () =>
      mcpToolResult({ content: [{ type: 'audio', data: 'A'.repeat(100), mimeType: 'audio/wav' }] }),
  },
  {
    // 50,000 small blocks: two characters of text, or audio with no data, each.
    tool: { namespace: 't', name: 'blocks', inputSchema: object },
    run: (args) =>
      mcpToolResult({
        content: Array.from({ length: 50_000 }, () =>
          (args as { audio?: boolean }).audio === true
            ? { type: 'audio' as const, data: '', mimeType: 'audio/wav' }
            : { type: 'text' as const, text: 'ab' },
        ),
      }),
  },
  {
    tool: { namespace: 't', name: 'gated', inputSchema: object },
    run: async (args) => {
      const { id, n } = args as { id: string; n: number };
      await gates.get(id);
      finished.push(id);
      return id.repeat(n);
    },
  },
]);
const resolve = (name: string): { id: string } => ({ id: name });
const call = (name: string, args: Record<string, unknown>, callId = name): ToolCallRequest => ({
  callId,
  name: `t:${name}`,
  arguments: JSON.stringify(args),
});
const run = (calls: ToolCallRequest[], options: RunCallsOptions): Promise<CallOutcome[]> =>
  runCalls(source, calls, resolve, options);
const note = (left: number, of: number): string =>
  `\n[toolplane: ${String(left)} of ${String(of)} characters left out]`;

describe('maxTurnOutputChars', () => {
  it('cuts ten results of 50,000 characters to 20,000 each under a bound of 200,000', async () => {
    const calls = Array.from({ length: 10 }, (_, i) => call('text', { n: 50_000 }, `c${i}`));
    const outcomes = await run(calls, { maxTurnOutputChars: 200_000, maxOutputChars: 200_000 });
    for (const outcome of outcomes) {
      expect(outcomeText(outcome)).toBe('x'.repeat(20_000) + note(30_000, 50_000));
      expect(outcome.structured).toHaveLength(50_000);
    }
  });

  it('keeps small results whole and cuts the large ones, errors among them, to one level', async () => {
    const outcomes = await run(
      [
        call('text', { n: 1_000 }, 'small'),
        call('text', { n: 100_000 }, 'large'),
        call('text', { n: 2_000 }, 'smaller'),
        call('fail', { n: 100_000 }, 'failed'),
      ],
      { maxTurnOutputChars: 50_000 },
    );
    const [small, large, smaller, failed] = outcomes.map(outcomeText);
    expect(small).toBe('x'.repeat(1_000));
    expect(smaller).toBe('x'.repeat(2_000));
    // (50,000 - 3,000) / 2 each, the error's `execution: ` prefix counted with its text.
    expect(large).toBe('x'.repeat(23_500) + note(76_500, 100_000));
    expect(outcomes[3]).toMatchObject({ isError: true, code: 'execution' });
    expect(failed?.startsWith('execution: tool "t:fail" failed: eee')).toBe(true);
    expect(failed?.endsWith(' characters left out]')).toBe(true);
    expect(failed?.indexOf('\n')).toBe(23_500);
  });

  it('counts base64 media, leaves out an image that no longer fits, and counts the notes', async () => {
    const [picture, text] = await run(
      [call('picture', { text: 5_000, image: 10_000 }), call('text', { n: 20_000 })],
      { maxTurnOutputChars: 20_000 },
    );
    // 15,000 and 20,000 share 20,000: 10,000 each; the picture's text fits, its image does not.
    expect(picture?.parts).toEqual([
      { type: 'text', text: 'p'.repeat(5_000) },
      {
        type: 'text',
        text: '[toolplane: image (image/png, 10000 base64 characters) left out: over the output limit]',
      },
    ]);
    expect(outcomeText(text as CallOutcome)).toBe('x'.repeat(10_000) + note(10_000, 20_000));

    const [sound, rest] = await run([call('sound', {}), call('text', { n: 1_000 })], {
      maxTurnOutputChars: 1_000,
    });
    const audioNote = outcomeText(sound as CallOutcome);
    expect(audioNote).toMatch(/^\[toolplane: audio .* left out: tool results take no audio\]$/);
    expect(outcomeText(rest as CallOutcome)).toBe(
      'x'.repeat(1_000 - audioNote.length) + note(audioNote.length, 1_000),
    );
  });

  it('keeps a picture whole when the turn fits', async () => {
    // The text's 10 characters, the image's 10,000, and 1 for the part after the first.
    const [picture] = await run([call('picture', { text: 10, image: 10_000 })], {
      maxTurnOutputChars: 10_011,
    });
    expect(picture?.parts[1]).toEqual({
      type: 'image',
      data: 'A'.repeat(10_000),
      mimeType: 'image/png',
    });
  });

  it('counts a call sent twice once', async () => {
    const outcomes = await run(
      [
        call('text', { n: 50_000 }, 'c1'),
        call('text', { n: 50_000 }, 'c1'),
        call('text', { n: 50_000 }, 'c2'),
      ],
      { maxTurnOutputChars: 100_000 },
    );
    expect(outcomes.map((outcome) => outcomeText(outcome).length)).toEqual([
      50_000, 50_000, 50_000,
    ]);
  });

  it('defaults to maxOutputChars: a raised one is not cut lower, a single call as before', async () => {
    const raised = await run(
      [call('text', { n: 300_000 }, 'a'), call('text', { n: 300_000 }, 'b')],
      { maxOutputChars: Infinity },
    );
    expect(raised.map((outcome) => outcomeText(outcome).length)).toEqual([300_000, 300_000]);
    const [one] = await run([call('text', { n: 300_000 })], {});
    expect(outcomeText(one as CallOutcome)).toBe('x'.repeat(200_000) + note(100_000, 300_000));
    const [two, three] = await run(
      [call('text', { n: 300_000 }, 'a'), call('text', { n: 300_000 }, 'b')],
      {},
    );
    expect(outcomeText(two as CallOutcome)).toBe('x'.repeat(100_000) + note(200_000, 300_000));
    expect(three?.parts).toEqual(two?.parts);
  });

  it('wins when it is below maxOutputChars', async () => {
    const [one] = await run([call('text', { n: 5_000 })], {
      maxOutputChars: 4_000,
      maxTurnOutputChars: 1_000,
    });
    expect(outcomeText(one as CallOutcome)).toBe('x'.repeat(1_000) + note(4_000, 5_000));
  });

  it('cuts the same whichever call finishes first', async () => {
    const inOrder = async (order: readonly string[]): Promise<CallOutcome[]> => {
      const opens = new Map<string, () => void>();
      for (const id of order) {
        gates.set(id, new Promise<void>((open) => opens.set(id, open)));
      }
      const pending = run(
        [
          call('gated', { id: 'a', n: 30_000 }, 'a'),
          call('gated', { id: 'b', n: 60_000 }, 'b'),
          call('gated', { id: 'c', n: 90_000 }, 'c'),
        ],
        { maxTurnOutputChars: 100_000, concurrency: 3 },
      );
      // Each call finishes before the next gate opens.
      for (const id of order) {
        opens.get(id)?.();
        await gates.get(id);
        await new Promise<void>((next) => setImmediate(next));
      }
      return pending;
    };
    const forwards = await inOrder(['a', 'b', 'c']);
    const backwards = await inOrder(['c', 'b', 'a']);
    expect(finished).toEqual(['a', 'b', 'c', 'c', 'b', 'a']);
    expect(backwards).toEqual(forwards);
    expect(forwards.map((outcome) => outcomeText(outcome).length)).toEqual([
      30_000,
      35_000 + note(25_000, 60_000).length,
      35_000 + note(55_000, 90_000).length,
    ]);
  });

  it('refuses a bound that would leave every result out (NaN, 0, -1, 1.5, text), running nothing', async () => {
    ran = 0;
    for (const bad of [Number.NaN, 0, -1, 1.5, '1000', null]) {
      await expect(
        run([call('text', { n: 10 })], { maxTurnOutputChars: bad as number }),
      ).rejects.toMatchObject({
        code: 'invalid_argument',
        message: expect.stringContaining('maxTurnOutputChars') as unknown,
      });
    }
    expect(ran).toBe(0);
  });
});

describe('maxOutputChars', () => {
  it('counts the notes too, and gives the blocks past it one note, not one each', async () => {
    const [texts, sounds] = await run(
      [call('blocks', {}, 'texts'), call('blocks', { audio: true }, 'sounds')],
      { maxOutputChars: 1_000, maxTurnOutputChars: 2_000 },
    );
    // 334 blocks of two characters (each after the first with its separator) fill the bound;
    // the 49,666 left were 2 million characters of notes.
    expect(texts?.parts).toHaveLength(335);
    expect(texts?.parts.at(-1)).toEqual({
      type: 'text',
      text: '[toolplane: 49666 more blocks left out: over the output limit]',
    });
    // Notes standing in for audio spend the bound as text does: 50,000 were 4.5 million.
    const said = outcomeText(sounds as CallOutcome);
    expect(said.length).toBeLessThan(1_100);
    expect(said).toMatch(/tool results take no audio\]\n\[toolplane: \d+ more blocks left out/);
  });
});

describe('fairLevel', () => {
  it('finds the water level: sizes under it whole, the rest at it', () => {
    expect(fairLevel([50, 50], 100)).toBe(Infinity);
    expect(fairLevel([10, 100, 100], 110)).toBe(50);
    expect(fairLevel([10, 10, 10], 10)).toBe(3);
    expect(fairLevel([5], -20)).toBe(0);
    expect(fairLevel([], 0)).toBe(Infinity);
  });
});
