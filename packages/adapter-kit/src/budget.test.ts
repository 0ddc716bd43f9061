import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_OUTPUT_CHARS, leftOutNote, mediaOf, OutputBudget, textOf } from './budget.js';
import type { ContentBlock } from './results.js';

describe('OutputBudget', () => {
  it('keeps text within the budget and cuts the rest with a note of how much was left out', () => {
    const budget = new OutputBudget(10);
    expect(budget.text('12345')).toBe('12345');
    expect(budget.left).toBe(5);
    expect(budget.text('abcdefgh')).toBe('abcde\n[toolplane: 3 of 8 characters left out]');
    expect(budget.left).toBe(0);
    expect(budget.text('more')).toBe('\n[toolplane: 4 of 4 characters left out]');
  });

  it('bounds a 10 MB text to the default budget', () => {
    const cut = new OutputBudget().text('x'.repeat(10 * 1024 * 1024));
    expect(cut.startsWith('x'.repeat(DEFAULT_MAX_OUTPUT_CHARS))).toBe(true);
    expect(cut.length).toBeLessThan(DEFAULT_MAX_OUTPUT_CHARS + 100);
  });

  it('takes media that fits and refuses media that does not, spending nothing then', () => {
    const budget = new OutputBudget(6);
    const small = mediaOf({ type: 'image', data: 'AAAA', mimeType: 'image/png' });
    const large = mediaOf({ type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' });
    if (small === undefined || large === undefined) throw new Error('media expected');
    expect(budget.take(large)).toBe(false);
    expect(budget.left).toBe(6);
    expect(budget.take(small)).toBe(true);
    expect(budget.left).toBe(2);
    expect(leftOutNote(large, 'over the output limit')).toBe(
      '[toolplane: audio (audio/wav, 8 base64 characters) left out: over the output limit]',
    );
  });

  it('tells resource links and text resources as text, and media as no text', () => {
    const budget = new OutputBudget(1_000);
    expect(
      budget.blockText({ type: 'resource_link', uri: 'file:///a', name: 'a', description: 'd' }),
    ).toBe('resource file:///a (a): d');
    expect(budget.blockText({ type: 'resource_link', uri: 'file:///b', name: '' })).toBe(
      'resource file:///b',
    );
    expect(budget.blockText({ type: 'resource', resource: { uri: 'mem://n', text: 'note' } })).toBe(
      'resource mem://n:\nnote',
    );
    expect(
      budget.blockText({ type: 'resource', resource: { uri: 'mem://b', blob: 'AA' } }),
    ).toBeUndefined();
    expect(budget.blockText({ type: 'image', data: 'AA', mimeType: 'image/png' })).toBeUndefined();
  });

  it('tells a failure by its text, else its structured content, else that it failed', () => {
    expect(new OutputBudget().failure({ content: [{ type: 'text', text: 'no such file' }] })).toBe(
      'no such file',
    );
    expect(
      new OutputBudget().failure({ content: [], structuredContent: { reason: 'quota' } }),
    ).toBe('{"reason":"quota"}');
    expect(new OutputBudget().failure({ content: [] })).toBe('"the tool failed"');
    expect(new OutputBudget(3).failure({ content: [{ type: 'text', text: 'abcdef' }] })).toBe(
      'abc\n[toolplane: 3 of 6 characters left out]',
    );
  });
});

describe('OutputBudget.parts', () => {
  it('makes each block a part while the budget lasts, then one note for the blocks left', () => {
    const budget = new OutputBudget(20);
    const content: ContentBlock[] = [
      { type: 'text', text: 'abcd' },
      { type: 'audio', data: '', mimeType: 'audio/wav' },
      { type: 'text', text: 'efghijkl' },
      { type: 'text', text: '' },
      { type: 'text', text: 'more' },
      { type: 'image', data: 'AA', mimeType: 'image/png' },
    ];
    const parts = budget.parts(
      content,
      (block) => {
        const media = mediaOf(block);
        return media === undefined ? budget.blockText(block) : budget.note(`[${media.what}]`);
      },
      (note) => note,
    );
    // Each part after the first spends a character for its separator: 4 + 1 + 7 + 1 + 7 = 20.
    expect(parts).toEqual([
      'abcd',
      '[audio]',
      'efghijk\n[toolplane: 1 of 8 characters left out]',
      '[toolplane: 3 more blocks left out: over the output limit]',
    ]);
    expect(budget.spent).toBe(20);
  });

  it('spends a character on each part after the first, so empty blocks cannot pass unbounded', () => {
    const budget = new OutputBudget(1_000);
    const content: ContentBlock[] = Array.from({ length: 50_000 }, () => ({
      type: 'text' as const,
      text: '',
    }));
    const parts = budget.parts(
      content,
      (block) => budget.blockText(block),
      (note) => note,
    );
    // 1,001 empty parts (the first is free), then one note for the 48,999 left.
    expect(parts).toHaveLength(1_002);
    expect(parts.at(-1)).toBe('[toolplane: 48999 more blocks left out: over the output limit]');
    expect(parts.join('\n').length).toBeLessThan(1_100);
  });

  it('counts a note that does not fit, and every block after it, in the one note', () => {
    const budget = new OutputBudget(5);
    const content: ContentBlock[] = [
      { type: 'audio', data: '', mimeType: 'audio/wav' },
      { type: 'text', text: 'ab' },
    ];
    const parts = budget.parts(
      content,
      (block) => (block.type === 'text' ? budget.blockText(block) : budget.note('a long note')),
      (note) => note,
    );
    expect(parts).toEqual(['[toolplane: 2 more blocks left out: over the output limit]']);
    expect(budget.left).toBe(5);
  });
});

describe('mediaOf', () => {
  it('names an embedded blob by its URI, with a default media type', () => {
    expect(mediaOf({ type: 'resource', resource: { uri: 'mem://b', blob: 'AAEC' } })).toEqual({
      kind: 'file',
      data: 'AAEC',
      mimeType: 'application/octet-stream',
      what: 'resource mem://b',
    });
    expect(mediaOf({ type: 'text', text: 'hi' })).toBeUndefined();
  });
});

describe('textOf', () => {
  it('joins the text blocks and skips the rest', () => {
    const content: ContentBlock[] = [
      { type: 'text', text: 'one' },
      { type: 'image', data: 'AA', mimeType: 'image/png' },
      { type: 'text', text: 'two' },
    ];
    expect(textOf(content)).toBe('one\ntwo');
  });
});
