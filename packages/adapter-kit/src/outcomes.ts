import { isPlainObject, type ToolError } from '@toolplane/toolmodel';
import type { RunResult } from '@toolplane/toolrun';
import { blockString, leftOutNote, mediaOf, OutputBudget, type Media } from './budget.js';
import { upstreamErrorOf, type ContentBlock } from './results.js';

/** One piece of a tool's result, in the form every provider package formats its own way. */
export type ResultPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string };

/**
 * The part a provider gets for `part`: an image of a type it takes (`accepted`) as it is, any
 * other part as it is too, and an image of another type (SVG, BMP, TIFF…) as a note naming it
 * and what `provider` takes instead, since one such image fails the provider's whole request.
 */
export function acceptedPart(
  part: ResultPart,
  accepted: ReadonlySet<string>,
  provider: string,
): ResultPart {
  if (part.type !== 'image' || accepted.has(part.mimeType)) return part;
  const takes = [...accepted].map((type) => type.slice('image/'.length).toUpperCase()).join(', ');
  return {
    type: 'text',
    text: leftOutNote(
      { kind: 'image', data: part.data, mimeType: part.mimeType, what: 'image' },
      `${provider} takes ${takes}`,
    ),
  };
}

/** A call's answer: its parts, and whether it is an error the model should read as one. */
export interface CallOutcome {
  readonly callId: string;
  readonly name: string;
  /** The tool's canonical ID; absent when the name matched no tool. */
  readonly toolId?: string;
  readonly isError: boolean;
  /** Toolplane's error code when the call failed before or instead of the tool answering. */
  readonly code?: string;
  readonly parts: readonly ResultPart[];
  /** The result as JSON when it has one (MCP `structuredContent`, a local tool's value). */
  readonly structured?: unknown;
}

/**
 * A call's answer before it is cut to the turn's bound, kept no larger than `maxOutputChars`
 * could ever let through (each text's start, with its whole length for the note), so a turn
 * holds no more of its results than it may hand the model while it waits for the last one. Cut
 * once the turn knows each answer's share ({@link renderDraft}).
 */
export interface Draft {
  readonly callId: string;
  readonly name: string;
  readonly toolId: string | undefined;
  readonly isError: boolean;
  readonly code: string | undefined;
  readonly structured: unknown;
  readonly pieces: readonly Piece[];
}

/** What the model reads of a result, block by block, before it is cut. */
type Piece =
  /** Text: the start of one `length` characters long, no longer than any budget could spend. */
  | { readonly type: 'text'; readonly text: string; readonly length: number }
  | { readonly type: 'image'; readonly media: Media }
  /** A note standing in for media the model does not get, whatever the budget. */
  | { readonly type: 'note'; readonly text: string };

/** A call's answer cut to a bound, with what the bound counted of it. */
export interface Rendered {
  readonly outcome: CallOutcome;
  /** The characters of text, base64 media and notes standing in for media the model reads. */
  readonly spent: number;
}

/** How a turn makes its drafts. */
export interface Drafting {
  /** No more of any text is kept (see {@link Draft}). */
  readonly maxOutputChars: number;
  /** See `RunCallsOptions.readsStructured`. */
  readonly readsStructured: boolean;
}

/** Who answers: the call's ID and name. */
interface Caller {
  readonly callId: string;
  readonly name: string;
}

/**
 * A successful run as a draft: an MCP result's blocks, a local tool's value as JSON text. With
 * `readsStructured` (see `RunCallsOptions`), structured content that is a JSON object stands in
 * for the result's text blocks as its JSON text, so the bounds count and cut what the model reads.
 */
export function draftOfRun(
  call: Caller,
  toolId: string,
  run: Pick<RunResult, 'structured' | 'mcpResult'>,
  { maxOutputChars, readsStructured }: Drafting,
): Draft {
  const mcp = run.mcpResult;
  if (mcp === undefined) {
    // A local tool's value: one text part (a string as it is, anything else as JSON).
    const value = run.structured;
    const text = typeof value === 'string' ? value : (JSON.stringify(value) as string | undefined);
    const pieces = text === undefined ? [] : [textPiece(text, maxOutputChars)];
    return draft(call, toolId, false, undefined, value, pieces);
  }
  // Any JSON value, not only the objects an AdapterToolResult keeps as structured content.
  const structured: unknown = mcp.structuredContent;
  const isError = mcp.isError === true;
  const content =
    readsStructured && !isError && isPlainObject(structured)
      ? [
          { type: 'text' as const, text: JSON.stringify(structured) },
          ...mcp.content.filter((block) => mediaOf(block) !== undefined),
        ]
      : mcp.content;
  const pieces = piecesOf(content, maxOutputChars);
  if (pieces.length === 0 && structured !== undefined) {
    pieces.push(textPiece(JSON.stringify(structured), maxOutputChars));
  }
  return draft(call, toolId, isError, undefined, structured, pieces);
}

/** A {@link Draft}, made in one shape (a literal, not a spread: every call of a turn makes one). */
function draft(
  call: Caller,
  toolId: string | undefined,
  isError: boolean,
  code: string | undefined,
  structured: unknown,
  pieces: readonly Piece[],
): Draft {
  return { callId: call.callId, name: call.name, toolId, isError, code, structured, pieces };
}

/**
 * A failure as a draft: an upstream's own error result (which the runner carries as the
 * failure's cause) as it was sent, any other failure as `code: message`.
 */
export function draftOfFailure(
  call: Caller,
  toolId: string | undefined,
  error: ToolError,
  { maxOutputChars }: Drafting,
): Draft {
  const upstream = upstreamErrorOf(error);
  const pieces =
    upstream === undefined
      ? [textPiece(`${error.code}: ${error.message}`, maxOutputChars)]
      : piecesOf(upstream.content, maxOutputChars);
  return draft(call, toolId, true, error.code, undefined, pieces);
}

function textPiece(text: string, max: number): Piece {
  return { type: 'text', text: text.length > max ? text.slice(0, max) : text, length: text.length };
}

/**
 * Blocks as pieces: text (each kept to `max`), images that could fit, notes for other media
 * and for images larger than any budget.
 */
function piecesOf(content: readonly ContentBlock[], max: number): Piece[] {
  return content.map((block): Piece => {
    const media = mediaOf(block);
    if (media === undefined) return textPiece(blockString(block) ?? '', max);
    if (media.kind === 'audio') {
      return { type: 'note', text: leftOutNote(media, 'tool results take no audio') };
    }
    if (media.kind === 'image' || media.mimeType.startsWith('image/')) {
      return media.data.length > max
        ? { type: 'note', text: leftOutNote(media, 'over the output limit') }
        : { type: 'image', media };
    }
    return { type: 'note', text: leftOutNote(media, 'tool results take text and images') };
  });
}

/**
 * `draft` as the model reads it, within `chars` characters: text cut with a note past them,
 * images while they fit, notes (which spend the budget too) for other media, and the pieces
 * past the budget told by one note ({@link OutputBudget.parts}).
 */
export function renderDraft(draft: Draft, chars: number): Rendered {
  const budget = new OutputBudget(chars);
  const parts = budget.parts(
    draft.pieces,
    (piece) => partOf(piece, budget),
    (text): ResultPart => ({ type: 'text', text }),
  );
  const outcome: {
    callId: string;
    name: string;
    toolId?: string;
    isError: boolean;
    code?: string;
    parts: ResultPart[];
    structured?: unknown;
  } = { callId: draft.callId, name: draft.name, isError: draft.isError, parts };
  // Always of the same shape: absent fields left out, never set to undefined.
  if (draft.toolId !== undefined) outcome.toolId = draft.toolId;
  if (draft.code !== undefined) outcome.code = draft.code;
  if (draft.structured !== undefined) outcome.structured = draft.structured;
  return { outcome, spent: budget.spent };
}

/** A piece as a part, or `undefined` for a note that does not fit what is left. */
function partOf(piece: Piece, budget: OutputBudget): ResultPart | undefined {
  if (piece.type === 'text') return { type: 'text', text: budget.text(piece.text, piece.length) };
  if (piece.type === 'image' && budget.take(piece.media)) {
    return { type: 'image', data: piece.media.data, mimeType: piece.media.mimeType };
  }
  const note = budget.note(
    piece.type === 'note' ? piece.text : leftOutNote(piece.media, 'over the output limit'),
  );
  return note === undefined ? undefined : { type: 'text', text: note };
}

/** The text of an outcome's parts, joined; images left out. */
export function outcomeText(outcome: CallOutcome): string {
  return outcome.parts
    .filter((part): part is Extract<ResultPart, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}
