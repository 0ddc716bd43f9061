import { renderDraft, type CallOutcome, type Draft, type Rendered } from './outcomes.js';

/**
 * The answers of a turn's calls as the model reads them, each cut once: within
 * `maxOutputChars` each and, together, within `maxTurnOutputChars`. Counted as `maxOutputChars`
 * counts: text, JSON, base64 media and the notes standing in for media; the note a cut adds (one
 * for cut text, one for the blocks past the bound) comes on top. When the answers add up to more, the bound is shared out
 * fairly: answers under the level {@link fairLevel} finds are kept whole, larger ones are all cut
 * to it. The cut depends on the answers alone, never on which call finished first. A hole in
 * `drafts` (a repeated call, answered with its first copy's outcome) counts for nothing.
 */
export function boundTurn(
  drafts: readonly (Draft | undefined)[],
  maxOutputChars: number,
  maxTurnOutputChars: number,
): (CallOutcome | undefined)[] {
  const rendered: (Rendered | undefined)[] = drafts.map((draft) =>
    draft === undefined ? undefined : renderDraft(draft, maxOutputChars),
  );
  const sizes: number[] = [];
  let spent = 0;
  for (const answer of rendered) {
    if (answer === undefined) continue;
    sizes.push(answer.spent);
    spent += answer.spent;
  }
  if (spent <= maxTurnOutputChars) return rendered.map((answer) => answer?.outcome);
  const level = fairLevel(sizes, maxTurnOutputChars);
  return rendered.map((answer, at) =>
    answer === undefined || answer.spent <= level
      ? answer?.outcome
      : renderDraft(drafts[at] as Draft, level).outcome,
  );
}

/**
 * Water-filling: the largest whole number `level` such that every size cut to it adds up to at
 * most `room` (`Infinity` when the sizes fit whole). Sizes under the level keep all they have, and
 * what they leave is shared by the larger ones.
 */
export function fairLevel(sizes: readonly number[], room: number): number {
  const sorted = [...sizes].sort((a, b) => a - b);
  let left = Math.max(0, room);
  for (let at = 0; at < sorted.length; at++) {
    const size = sorted[at] as number;
    const sharing = sorted.length - at;
    if (size * sharing > left) return Math.floor(left / sharing);
    left -= size;
  }
  return Infinity;
}
