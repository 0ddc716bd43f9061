import { isPlainObject, type ToolError } from '@toolplane/toolmodel';
import type { RunResult } from '@toolplane/toolrun';
import { leftOutNote, mediaOf, OutputBudget } from './budget.js';
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
 * A call's answer before it is cut to a bound: kept whole until the turn knows how many
 * characters each of its answers may have, so each is cut once ({@link renderDraft}).
 */
export interface Draft {
  readonly callId: string;
  readonly name: string;
  readonly toolId: string | undefined;
  readonly isError: boolean;
  readonly code: string | undefined;
  readonly structured: unknown;
  /** What the model reads: one text (or none), or MCP content blocks. */
  readonly body:
    | { readonly kind: 'text'; readonly text: string | undefined }
    | {
        readonly kind: 'blocks';
        readonly content: readonly ContentBlock[];
        /** Read as JSON when the blocks give the model nothing. */
        readonly fallback: unknown;
      };
}

/** A call's answer cut to a bound, with what the bound counted of it. */
export interface Rendered {
  readonly outcome: CallOutcome;
  /** The characters of text, base64 media and notes standing in for media the model reads. */
  readonly spent: number;
}

/**
 * A successful run as a draft: an MCP result's blocks, a local tool's value as JSON text. With
 * `readsStructured` (see `RunCallsOptions`), structured content that is a JSON object stands in
 * for the result's text blocks as its JSON text, so the bounds count and cut what the model reads.
 */
export function draftOfRun(
  call: { readonly callId: string; readonly name: string },
  toolId: string,
  run: Pick<RunResult, 'structured' | 'mcpResult'>,
  readsStructured = false,
): Draft {
  const mcp = run.mcpResult;
  const base = { callId: call.callId, name: call.name, toolId, code: undefined };
  if (mcp === undefined) {
    // A local tool's value: one text part (a string as it is, anything else as JSON).
    const value = run.structured;
    const text = typeof value === 'string' ? value : (JSON.stringify(value) as string | undefined);
    return { ...base, isError: false, structured: value, body: { kind: 'text', text } };
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
  return { ...base, isError, structured, body: { kind: 'blocks', content, fallback: structured } };
}

/**
 * A failure as a draft: an upstream's own error result (which the runner carries as the
 * failure's cause) as it was sent, any other failure as `code: message`.
 */
export function draftOfFailure(
  call: { readonly callId: string; readonly name: string },
  toolId: string | undefined,
  error: ToolError,
): Draft {
  const upstream = upstreamErrorOf(error);
  return {
    callId: call.callId,
    name: call.name,
    toolId,
    isError: true,
    code: error.code,
    structured: undefined,
    body:
      upstream === undefined
        ? { kind: 'text', text: `${error.code}: ${error.message}` }
        : { kind: 'blocks', content: upstream.content, fallback: undefined },
  };
}

/** `draft` as the model reads it, within `chars` characters (text cut with a note past them). */
export function renderDraft(draft: Draft, chars: number): Rendered {
  const budget = new OutputBudget(chars);
  const { body } = draft;
  let parts: ResultPart[];
  if (body.kind === 'text') {
    parts = body.text === undefined ? [] : [{ type: 'text', text: budget.text(body.text) }];
  } else {
    parts = toParts(body.content, budget);
    if (parts.length === 0 && body.fallback !== undefined) {
      parts.push({ type: 'text', text: budget.text(JSON.stringify(body.fallback)) });
    }
  }
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

/**
 * Blocks as parts: text cut to the budget, images while they fit, notes (which spend the budget
 * too) for other media; the blocks past the budget told by one note ({@link OutputBudget.parts}).
 */
function toParts(content: readonly ContentBlock[], budget: OutputBudget): ResultPart[] {
  return budget.parts(
    content,
    (block) => toPart(block, budget),
    (text): ResultPart => ({ type: 'text', text }),
  );
}

/** A block as a part, or `undefined` for a note standing in for media that does not fit. */
function toPart(block: ContentBlock, budget: OutputBudget): ResultPart | undefined {
  const media = mediaOf(block);
  if (media === undefined) return { type: 'text', text: budget.blockText(block) ?? '' };
  const image =
    media.kind === 'image' || (media.kind === 'file' && media.mimeType.startsWith('image/'));
  if (image && budget.take(media)) {
    return { type: 'image', data: media.data, mimeType: media.mimeType };
  }
  const note = budget.note(
    leftOutNote(
      media,
      image
        ? 'over the output limit'
        : media.kind === 'audio'
          ? 'tool results take no audio'
          : 'tool results take text and images',
    ),
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
