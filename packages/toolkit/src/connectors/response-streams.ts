import type { StreamEnd } from './scoped-fetch.js';

/** What an ended event stream means for the request whose answer it was carrying. */
export type StreamVerdict =
  /** It carried no unanswered request: nothing to do. */
  | { readonly kind: 'settled' }
  /** The transport resumes it from its last event ID; the answer may still come. */
  | { readonly kind: 'resuming'; readonly requestId: string | number }
  /** The answer can no longer arrive: the request must fail now. */
  | { readonly kind: 'lost'; readonly requestId: string | number; readonly reason: string };

const SETTLED: StreamVerdict = Object.freeze({ kind: 'settled' });

/**
 * Follows each request's answer across the ends of the event streams that carry it, on one
 * Streamable HTTP connection.
 *
 * Why: a server may end a POST's event stream before the answer (to poll, or behind a proxy that
 * cuts long streams). The SDK's transport resumes such a stream (a GET with `Last-Event-ID`, after
 * the server's `retry` delay) only when it carried an event ID, and gives up without a word when
 * the resumption is refused (HTTP 405, a lost session) or its stream ends without one: in every
 * such case the request would wait out its whole timeout. This says when the answer can no
 * longer come, so the connector fails the request at once.
 */
export class ResponseStreams {
  // A resumable stream's last event ID → the request whose answer it was carrying.
  readonly #resumable = new Map<string, string | number>();

  /** Judges an ended stream (see {@link StreamEnd}) and remembers where a resumption starts. */
  settle(end: StreamEnd): StreamVerdict {
    const { resumedFrom, lastEventId } = end;
    const requestId = resumedFrom === undefined ? end.requestId : this.#take(resumedFrom);
    if (requestId === undefined || end.answered) return SETTLED;
    if (lastEventId !== undefined) {
      this.#resumable.set(lastEventId, requestId);
      return { kind: 'resuming', requestId };
    }
    return { kind: 'lost', requestId, reason: lostReason(end) };
  }

  #take(eventId: string): string | number | undefined {
    const requestId = this.#resumable.get(eventId);
    this.#resumable.delete(eventId);
    return requestId;
  }
}

function lostReason({ resumedFrom, opened, error }: StreamEnd): string {
  const cause = error instanceof Error ? error.message : String(error);
  const stream =
    resumedFrom === undefined
      ? 'the response stream'
      : `the response stream resumed from event "${resumedFrom}"`;
  if (!opened && resumedFrom !== undefined)
    return `the server did not resume the response stream from event "${resumedFrom}" (${cause})`;
  const how = error === undefined ? 'ended' : `broke (${cause})`;
  return `${stream} ${how} before the answer, with no event ID to resume it from`;
}
