// Test helper: an event store kept in memory, so a Streamable HTTP server can resume streams.
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

/** Every event of every stream, in order; event IDs are `<stream>_<n>`. */
export class MemoryEventStore implements EventStore {
  readonly #events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  #count = 0;

  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${streamId}_${String(++this.#count)}`;
    this.#events.set(id, { streamId, message });
    return Promise.resolve(id);
  }

  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) return '';
    let after = false;
    for (const [id, event] of this.#events) {
      if (id === lastEventId) {
        after = true;
        continue;
      }
      if (after && event.streamId === last.streamId) await send(id, event.message);
    }
    return last.streamId;
  }
}
