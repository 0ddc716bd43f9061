import { ToolError } from '@toolplane/toolmodel';
import { mcpToolResult } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { draftOfFailure, draftOfRun, outcomeText, renderDraft } from './outcomes.js';

const call = { callId: 'c', name: 't__big' };
const drafting = { maxOutputChars: 1_000, readsStructured: false };

describe('draftOfRun and draftOfFailure', () => {
  it('keep no more of a result than maxOutputChars could let through, while the turn waits', () => {
    const big = 'x'.repeat(10_000_000);
    const drafts = [
      draftOfRun(call, 't:big', { structured: big }, drafting),
      draftOfRun(
        call,
        't:big',
        {
          structured: undefined,
          mcpResult: mcpToolResult({
            content: [
              { type: 'text', text: big },
              { type: 'image', data: big, mimeType: 'image/png' },
            ],
          }),
        },
        drafting,
      ),
      draftOfFailure(call, 't:big', new ToolError('execution', big), drafting),
    ];
    for (const draft of drafts) {
      const kept = draft.pieces.reduce(
        (sum, piece) =>
          sum + (piece.type === 'image' ? piece.media.data.length : piece.text.length),
        0,
      );
      expect(kept).toBeLessThan(1_200);
    }
    // …and say how long the text was when it is cut.
    expect(outcomeText(renderDraft(drafts[0]!, 1_000).outcome)).toBe(
      `${'x'.repeat(1_000)}\n[toolplane: 9999000 of 10000000 characters left out]`,
    );
    expect(outcomeText(renderDraft(drafts[1]!, 10).outcome)).toBe(
      `${'x'.repeat(10)}\n[toolplane: 9999990 of 10000000 characters left out]\n[toolplane: 1 more block left out: over the output limit]`,
    );
  });
});
