// How `serve` is watched: its log (text or JSON lines, audit lines), its metrics (`GET /metrics`
// over HTTP) and its traces (OTLP), set up from the config and the flags in one place.
import { createGatewayMetrics, type GatewayMetrics } from '@toolplane/gateway';
import { ToolError } from '@toolplane/toolkit';
import type { CliConfig } from '../config.js';
import type { Output } from '../output.js';
import { createServeLog, type ServeLog } from './serve-log.js';
import { startTelemetry, type Telemetry } from './telemetry.js';

/** What {@link observeServe} sets up; {@link ServeObservation.close} ends it. */
export interface ServeObservation {
  readonly log: ServeLog;
  /** The gateway's metrics, over HTTP only (stdio has no `/metrics` to serve them on). */
  readonly metrics: GatewayMetrics | undefined;
  /**
   * Writes the lines the log still holds back, flushes the spans still buffered and uninstalls
   * the tracer provider.
   */
  close(): Promise<void>;
}

/** Options of {@link observeServe}. */
export interface ObserveServeOptions {
  readonly output: Output;
  readonly cfg: CliConfig;
  readonly http: boolean;
  /** `--log-format`, which wins over the config's `log.format`. */
  readonly logFormat: 'text' | 'json' | undefined;
  readonly instanceId: string | undefined;
}

/**
 * Sets up `serve`'s log, metrics and traces. Call it before the toolkit opens: the tracer
 * provider must be in place before the first span, and the metrics wrap the store.
 */
export async function observeServe(options: ObserveServeOptions): Promise<ServeObservation> {
  const { output, cfg } = options;
  const log = createServeLog({
    output,
    log: { ...cfg.log, ...(options.logFormat === undefined ? {} : { format: options.logFormat }) },
    ...(options.instanceId === undefined ? {} : { instanceId: options.instanceId }),
  });
  const telemetry: Telemetry | undefined = await startTelemetry(cfg);
  if (telemetry !== undefined) {
    log.info(`traces go to ${cfg.telemetry.otlp?.url ?? ''} (OTLP/HTTP)`, {
      otlp: cfg.telemetry.otlp?.url,
    });
  }
  return {
    log,
    metrics: options.http ? createGatewayMetrics() : undefined,
    close: async () => {
      log.flush();
      await telemetry?.shutdown();
    },
  };
}

/**
 * `--log-format`'s value, checked.
 *
 * @throws {ToolError} `invalid_argument` for anything but `text` or `json`.
 */
export function parseLogFormat(value: string): 'text' | 'json' {
  if (value === 'text' || value === 'json') return value;
  throw new ToolError('invalid_argument', `--log-format ${value}: must be "text" or "json"`);
}
