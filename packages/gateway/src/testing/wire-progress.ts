import type { Transport } from '@modelcontextprotocol/client';

/**
 * Records the `progress` of every progress notification that reaches a connected client's
 * `transport`, read off the wire before the SDK dispatches it, in arrival order.
 *
 * Why not `onprogress`: the SDK client runs notification handlers a microtask late but handles
 * a response at once, dropping the request's progress handler, so progress that shares a read
 * with the result is lost on the client (modelcontextprotocol/typescript-sdk#2580; toolrun's
 * progress relay reads upstream progress the same way for that reason). On a loaded machine
 * most reads carry several messages, so what `onprogress` sees says more about the load than
 * about what the gateway sent.
 */
export function wireProgress(transport: Transport): number[] {
  const seen: number[] = [];
  const forward = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as { method?: unknown; params?: { progress?: unknown } };
    if (m.method === 'notifications/progress' && typeof m.params?.progress === 'number')
      seen.push(m.params.progress);
    forward?.call(transport, message, extra);
  };
  return seen;
}
