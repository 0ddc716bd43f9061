// The dashboard's view of tool pinning: the changes waiting to be accepted, each with the same
// readable diff `toolplane tools changes` prints, and accepting them from the browser.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  acceptCommand,
  changedFields,
  describePinChange,
  type PinChange,
  type PinStore,
} from '@toolplane/toolkit';
import { stringField, type ToolVisibility } from './api.js';
import { readJsonObject, sendJson, UiError } from './http.js';

/** What the pin handlers need. */
export interface PinsContext {
  /** The toolkit's pin store; absent when pinning is off. */
  readonly pins: PinStore | undefined;
  readonly visible: ToolVisibility;
  readonly maxBody: number;
}

// A page the browser renders at once; a diff's lines are bounded by describePinChange too.
const MAX_CHANGES = 500;
const MAX_DIFF_LINES = 200;
const MAX_NAME = 300;
const MAX_FINGERPRINT = 100;

/** One pending change as the Changes page shows it. */
interface ChangeView {
  readonly id: string;
  readonly namespace: string;
  readonly tool: string;
  readonly seenAt: number;
  readonly fields: string[];
  readonly pinned: string;
  readonly current: string;
  readonly diff: string;
  /** The command that accepts this definition only (`--fingerprint` of `current`). */
  readonly accept: string;
}

function view(change: PinChange): ChangeView {
  return {
    id: `${change.namespace}:${change.tool}`,
    namespace: change.namespace,
    tool: change.tool,
    seenAt: change.seenAt,
    fields: changedFields(change),
    pinned: change.pinned.fingerprint,
    current: change.current.fingerprint,
    diff: describePinChange(change, { maxLines: MAX_DIFF_LINES }),
    accept: acceptCommand(change.namespace, change.tool, {
      fingerprint: change.current.fingerprint,
    }),
  };
}

/**
 * `GET api/changes`: the pending pin changes of the tools the dashboard shows, newest first.
 * `pinning: false` when the gateway pins nothing.
 */
export async function changes(ctx: PinsContext, res: ServerResponse): Promise<void> {
  if (ctx.pins === undefined) {
    sendJson(res, 200, { pinning: false, changes: [] });
    return;
  }
  const pending = (await ctx.pins.listChanges(undefined, { signal: AbortSignal.timeout(10_000) }))
    .filter((change) => ctx.visible({ namespace: change.namespace, name: change.tool }))
    .sort((a, b) => b.seenAt - a.seenAt);
  sendJson(res, 200, {
    pinning: true,
    total: pending.length,
    changes: pending.slice(0, MAX_CHANGES).map(view),
  });
}

/**
 * `POST api/accept` `{ namespace, tool, fingerprint? }`: accepts one tool's change, as
 * `toolplane tools accept` does; the store writes a `pin.accepted` audit record by `dashboard`.
 * With `fingerprint` (the `current` the Changes page showed), only while the tool still offers
 * that definition.
 *
 * @throws {UiError} 400 `invalid_argument` for a malformed body or fingerprint or with pinning
 * off, 404 `not_found` when that tool has no pending change (or is not shown); the store's 409
 * `conflict`, accepting nothing, when the tool offers another definition than `fingerprint`.
 */
export async function accept(
  ctx: PinsContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJsonObject(req, ctx.maxBody);
  const namespace = stringField(body, 'namespace', MAX_NAME);
  const tool = stringField(body, 'tool', MAX_NAME);
  const fingerprint =
    body.fingerprint === undefined ? undefined : stringField(body, 'fingerprint', MAX_FINGERPRINT);
  if (ctx.pins === undefined) {
    throw new UiError(400, 'invalid_argument', 'this gateway pins no tools (pinning is off)');
  }
  if (!ctx.visible({ namespace, name: tool })) {
    throw new UiError(404, 'not_found', `no pending change of "${namespace}:${tool}"`);
  }
  const target = fingerprint === undefined ? { namespace, tool } : { namespace, tool, fingerprint };
  const accepted = await ctx.pins.accept(target, 'dashboard', {
    signal: AbortSignal.timeout(10_000),
  });
  if (accepted.length === 0) {
    throw new UiError(
      404,
      'not_found',
      `no pending change of "${namespace}:${tool}"; see the Changes page`,
    );
  }
  sendJson(res, 200, { accepted: accepted.map((c) => `${c.namespace}:${c.tool}`) });
}
