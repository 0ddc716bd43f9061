// Connection slots: how many TCP connections the gateway holds, in all and per source, and which
// of them gives way when a new one finds no slot free. A connection kept alive between requests
// holds its slot for up to the keep-alive timeout (65 s), so a gateway near its bounds would
// otherwise refuse new clients while connections nobody uses sit in their slots. The one that
// gives way is the connection idle longest, the one the keep-alive timeout would close first:
// its client has had every answer it asked for and opens a connection again; only a request it
// sends at the very moment of the close is lost, as at the keep-alive timeout. A connection
// with a request in flight (a GET stream included), or that has not yet sent a whole request,
// never gives way; when no connection may, the new one is refused on arrival.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionBoundRecord } from '../observe/observer.js';
import type { SourceLimits } from './sources.js';

interface Slot {
  /** The source it counts against; `undefined` for a trusted proxy's connection. */
  readonly source: string | undefined;
  readonly release: () => void;
  /** Requests on it whose answers are not done. */
  inFlight: number;
}

/** Counts the gateway's connections against `maxConnections` and their sources' bounds. */
export class ConnectionSlots {
  readonly #max: number;
  readonly #sources: SourceLimits;
  readonly #slots = new Map<Socket, Slot>();
  /** The connections with no request in flight that have answered one, longest idle first. */
  readonly #idle = new Set<Socket>();
  /** The same, by source, so a source's longest idle connection is found in one step. */
  readonly #idleOf = new Map<string, Set<Socket>>();
  readonly #onBound: (record: ConnectionBoundRecord) => void;

  /** `onBound` hears of each new connection that meets a bound, and what became of it. */
  constructor(
    maxConnections: number,
    sources: SourceLimits,
    onBound: (record: ConnectionBoundRecord) => void,
  ) {
    this.#max = maxConnections;
    this.#sources = sources;
    this.#onBound = onBound;
  }

  /** The connections open now: idle (kept alive with nothing in flight) and the rest. */
  counts(): { readonly idle: number; readonly active: number } {
    return { idle: this.#idle.size, active: this.#slots.size - this.#idle.size };
  }

  /**
   * Counts a new connection until it closes, closing the longest idle connection of its source
   * (at its source's bound) or of any source (at `maxConnections`) to make room; `false`, and
   * nothing closed or counted, when no connection may give way: the caller refuses it.
   */
  admit(socket: Socket): boolean {
    const source = this.#sources.connectionSource(socket);
    const atSourceBound = source !== undefined && this.#sources.full(source);
    const ofSource = atSourceBound ? first(this.#idleOf.get(source)) : undefined;
    if (atSourceBound && ofSource === undefined) {
      this.#onBound({ bound: 'source', outcome: 'refused', source });
      return false;
    }
    const full = this.#slots.size - (ofSource === undefined ? 0 : 1) >= this.#max;
    const ofAny = full ? first(this.#idle, ofSource) : undefined;
    if (full && ofAny === undefined) {
      this.#onBound({ bound: 'connections', outcome: 'refused', source });
      return false;
    }
    if (ofSource !== undefined) {
      this.#giveWay(ofSource);
      this.#onBound({ bound: 'source', outcome: 'gave_way', source });
    }
    if (ofAny !== undefined) {
      this.#giveWay(ofAny);
      this.#onBound({ bound: 'connections', outcome: 'gave_way', source });
    }
    const release = source === undefined ? noRelease : this.#sources.claim(source);
    // Room was made above; a claim refused here would be a miscount, and is refused all the same.
    if (release === undefined) return false;
    this.#slots.set(socket, { source, release, inFlight: 0 });
    socket.once('close', () => {
      this.#forget(socket);
    });
    return true;
  }

  /** Marks `req`'s connection busy until `res` is done. */
  track(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    const slot = this.#slots.get(socket);
    if (slot === undefined) return;
    slot.inFlight++;
    this.#notIdle(socket, slot);
    res.once('close', () => {
      slot.inFlight--;
      if (slot.inFlight === 0 && this.#slots.get(socket) === slot && !socket.destroyed) {
        this.#nowIdle(socket, slot);
      }
    });
  }

  /** Puts `socket` last in the idle sets: the most recently idle. */
  #nowIdle(socket: Socket, slot: Slot): void {
    this.#idle.add(socket);
    if (slot.source === undefined) return;
    let ofSource = this.#idleOf.get(slot.source);
    if (ofSource === undefined) this.#idleOf.set(slot.source, (ofSource = new Set()));
    ofSource.add(socket);
  }

  /** Takes `socket` out of the idle sets. */
  #notIdle(socket: Socket, slot: Slot): void {
    if (!this.#idle.delete(socket) || slot.source === undefined) return;
    const ofSource = this.#idleOf.get(slot.source);
    if (ofSource?.delete(socket) === true && ofSource.size === 0) {
      this.#idleOf.delete(slot.source);
    }
  }

  /** Closes an idle connection, its slot freed at once. */
  #giveWay(socket: Socket): void {
    this.#forget(socket);
    socket.destroy();
  }

  #forget(socket: Socket): void {
    const slot = this.#slots.get(socket);
    if (slot === undefined) return;
    this.#slots.delete(socket);
    this.#notIdle(socket, slot);
    slot.release();
  }
}

/** The first of `sockets` (the longest idle) other than `except`: at most two steps. */
function first(sockets: Set<Socket> | undefined, except?: Socket): Socket | undefined {
  if (sockets === undefined) return undefined;
  for (const socket of sockets) if (socket !== except) return socket;
  return undefined;
}

function noRelease(): void {
  // A trusted proxy's connection counts against no source.
}
