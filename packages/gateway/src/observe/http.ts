// The HTTP side of observing a gateway: the /metrics answer and the count of every answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
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
 * route is one of four fixed words, so that paths a caller makes up never become label values.
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
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const pathname = query === -1 ? url : url.slice(0, query);
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
