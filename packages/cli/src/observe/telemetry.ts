// `telemetry: { otlp: { url } }`: the toolkit's spans (it traces through @opentelemetry/api,
// a no-op until an SDK is installed) exported over OTLP/HTTP by the OpenTelemetry SDK.
import { commonJs } from '@toolplane/toolmodel';
import type { CliConfig } from '../config.js';
import { VERSION } from '../version.js';

/** A tracer provider installed for the process; {@link Telemetry.shutdown} flushes and removes it. */
export interface Telemetry {
  /** Sends the spans still buffered, then uninstalls the provider. */
  shutdown(): Promise<void>;
}

// Spans wait at most this long in the batch before they are sent.
const EXPORT_DELAY_MS = 1_000;

/**
 * Installs the OpenTelemetry SDK as the global tracer provider, exporting spans in batches to
 * the OTLP/HTTP endpoint `telemetry.otlp.url` names (the full traces URL, e.g.
 * `http://127.0.0.1:4318/v1/traces`), with its `headers`; `undefined` when the config has no
 * `telemetry.otlp`. The SDK is loaded only then.
 */
export async function startTelemetry(cfg: CliConfig): Promise<Telemetry | undefined> {
  const otlp = cfg.telemetry.otlp;
  if (otlp === undefined) return undefined;
  // CommonJS packages: the shipped bundle has their exports as `default` alone (see commonJs).
  const [api, core, base, exporter, resources, hooks] = await Promise.all([
    import('@opentelemetry/api').then(commonJs),
    import('@opentelemetry/core').then(commonJs),
    import('@opentelemetry/sdk-trace-base').then(commonJs),
    import('@opentelemetry/exporter-trace-otlp-http').then(commonJs),
    import('@opentelemetry/resources').then(commonJs),
    import('@opentelemetry/context-async-hooks').then(commonJs),
  ]);
  const provider = new base.BasicTracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': 'toolplane',
      'service.version': VERSION,
    }),
    spanProcessors: [
      new base.BatchSpanProcessor(
        new exporter.OTLPTraceExporter({ url: otlp.url, headers: { ...otlp.headers } }),
        { scheduledDelayMillis: EXPORT_DELAY_MS },
      ),
    ],
  });
  // Without a context manager a call's spans would not nest (a prompt's tool calls, upstreams).
  const contextManager = new hooks.AsyncLocalStorageContextManager().enable();
  api.context.setGlobalContextManager(contextManager);
  api.trace.setGlobalTracerProvider(provider);
  // Upstream MCP servers get the call's `traceparent` in `_meta`, so their spans join the trace.
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  return {
    async shutdown() {
      await provider.shutdown();
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
    },
  };
}
