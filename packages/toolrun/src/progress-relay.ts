import type { Transport } from '@modelcontextprotocol/client';
import type { ProgressEvent } from './types.js';

/**
 * Progress listeners by progress token, for one transport.
 *
 * Why this exists: the SDK's `Protocol` (v1 1.32 and v2 2.4 alike) dispatches notifications a
 * microtask late but responses at once, so progress sent just before a result (in the same read)
 * reaches a request whose progress handler is already gone and is dropped
 * (modelcontextprotocol/typescript-sdk#2580). Reading our own tokens straight off the
 * transport delivers every notification, in order, before the response.
 */
export type ProgressRelay = Map<string, (event: ProgressEvent) => void>;

const relays = new WeakMap<Transport, ProgressRelay>();

function progressParams(message: unknown): { token: unknown; event: ProgressEvent } | undefined {
  const m = message as { method?: unknown; params?: Record<string, unknown> } | null;
  if (m?.method !== 'notifications/progress' || typeof m.params !== 'object') return undefined;
  const { progressToken, progress, total, message: text } = m.params;
  if (typeof progress !== 'number') return undefined;
  const event: { progress: number; total?: number; message?: string } = { progress };
  if (typeof total === 'number') event.total = total;
  if (typeof text === 'string') event.message = text;
  return { token: progressToken, event };
}

/**
 * The relay of `client`'s current transport, installed on first use; `undefined` when the
 * client is not connected.
 */
export function progressRelay(client: {
  readonly transport?: Transport | undefined;
}): ProgressRelay | undefined {
  const transport = client.transport;
  if (transport === undefined) return undefined;
  let relay = relays.get(transport);
  if (relay === undefined) {
    const listeners: ProgressRelay = new Map();
    const forward = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (listeners.size > 0) {
        const progress = progressParams(message);
        const listener =
          progress !== undefined && typeof progress.token === 'string'
            ? listeners.get(progress.token)
            : undefined;
        if (listener !== undefined && progress !== undefined) {
          listener(progress.event);
          return;
        }
      }
      forward?.call(transport, message, extra);
    };
    relay = listeners;
    relays.set(transport, relay);
  }
  return relay;
}
