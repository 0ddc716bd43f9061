// The HTTP side of observing a gateway: the /metrics answer and the count of every answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestPath } from '../http/request.js';
import type { GatewayMetrics } from './metrics.js';
import { safely, type GatewayObserver, type HttpRequestRecord } from './observer.js';

/** The path `serveHttp` answers metrics on. */
export const METRICS_PATH = '/metrics';

/** Answers a scrape: the metrics in the Prometheus text format. */
export async function writeMetrics(metrics: GatewayMetrics, res: ServerResponse): Promise<void> {
  const text = await metrics.scrape();
  res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
  res.end(text);
}

/**
 * Tells `observer` of the answer to `req` once it is sent (or the connection ends first). The
 * route is one of four fixed words, so that paths a caller makes up never become label values,
 * read from the path as the server routed it (`/ui/../metrics` is `metrics`).
 */
export function watchAnswer(
  observer: GatewayObserver | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  mcpPath: string,
): void {
  const hook = observer?.httpRequest;
  if (hook === undefined) return;
  res.once('close', () => {
    const pathname = pathOf(req.url ?? '/');
    const route: HttpRequestRecord['route'] =
      pathname === mcpPath
        ? 'mcp'
        : pathname === '/healthz'
          ? 'healthz'
          : pathname === METRICS_PATH
            ? 'metrics'
            : 'other';
    safely(hook, { status: res.statusCode, route });
  });
}

/** The path of a request target as the server routes it; `undefined` for one it refused. */
function pathOf(target: string): string | undefined {
  try {
    return requestPath(target);
  } catch {
    return undefined;
  }
}
