// Prometheus metrics of one gateway, on a registry of its own (prom-client's global default
// would mix two gateways of one process, and whatever else registered there).
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { MODERN_PROTOCOL_VERSION } from '@toolplane/toolmodel/wire';
import type { ConnectorState, Store, Toolkit, ToolkitEvent } from '@toolplane/toolkit';
import {
  UNKNOWN_TOOL,
  type GatewayObserver,
  type HttpRequestRecord,
  type ToolCallRecord,
} from './observer.js';
import { CallCounter, LabelledHistogram } from './call-series.js';

/** Options of {@link createGatewayMetrics}. */
export interface GatewayMetricsOptions {
  /** Prepended to every metric name (default `toolplane_`). */
  readonly prefix?: string;
  /**
   * Most distinct tools given a series of their own (default 20,000); calls of tools past it
   * are counted under the tool `other`, so the series stay bounded even if tools come and go.
   */
  readonly maxTools?: number;
  /** Histogram buckets of call and store durations, in seconds. */
  readonly buckets?: readonly number[];
}

/** What a served gateway tells its metrics at scrape time; see {@link GatewayMetrics.bind}. */
export interface MetricsSource {
  /**
   * The toolkit served. With its `connector` lookup, a server removed and added again (a config
   * reload's replacement) is told apart from one that reconnects: only a connector that was
   * connected itself counts a reconnect.
   */
  readonly toolkit: Pick<Toolkit, 'connectors' | 'onEvent'> & Partial<Pick<Toolkit, 'connector'>>;
  /** Sessions open now, by era (`2025` sessions; `2026` requests being served). */
  readonly sessions?: () => { readonly legacy: number; readonly modern: number };
  /** HTTP connections open now: idle (kept alive, nothing in flight) and the rest. */
  readonly connections?: () => { readonly idle: number; readonly active: number };
}

/**
 * The Prometheus metrics of one gateway: pass {@link GatewayMetrics.observer} (or the metrics
 * themselves, as `serveHttp`'s `metrics`) to the gateway, wrap its store with
 * {@link GatewayMetrics.instrumentStore}, and read {@link GatewayMetrics.scrape}.
 */
export interface GatewayMetrics {
  /** The registry every series lives in (one per gateway). */
  readonly registry: Registry;
  /** The observer that counts calls, HTTP answers and searches. */
  readonly observer: GatewayObserver;
  /**
   * Watches a toolkit's connectors (state at scrape time, reconnects as they happen) and the
   * open sessions; returns what stops watching.
   */
  bind(source: MetricsSource): () => void;
  /** `store` with every operation counted and timed (same object shape, same errors). */
  instrumentStore<S extends Store>(store: S): S;
  /** The metrics in the Prometheus text format. */
  scrape(): Promise<string>;
  /** The `Content-Type` of {@link scrape}'s text. */
  readonly contentType: string;
}

const DEFAULT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const DEFAULT_MAX_TOOLS = 20_000;
const OTHER_TOOL = 'other';
const CONNECTOR_STATES: readonly ConnectorState[] = [
  'connecting',
  'connected',
  'disconnected',
  'auth_required',
  'failed',
];
const STORE_OPS = [
  'listPrompts',
  'getPrompt',
  'putPrompt',
  'deletePrompt',
  'listResources',
  'getResource',
  'putResource',
  'deleteResource',
] as const;

/**
 * Creates the metrics of one gateway on a registry of its own: tool calls by namespace, tool
 * and outcome (`ok`, `isError` or the error code), call durations by namespace, connector state
 * and reconnects, sessions by era, HTTP answers by status, HTTP connections open and those that
 * met a connection bound, store operations and their latency, and catalogue searches. Label
 * values come only from the gateway's own tools, namespaces and closed sets of codes: a name no
 * tool has is counted as `unknown`, never as itself.
 *
 * @throws {ToolError} never; a bad option is a programming error caught by the types.
 */
export function createGatewayMetrics(options: GatewayMetricsOptions = {}): GatewayMetrics {
  const prefix = options.prefix ?? 'toolplane_';
  const buckets = [...(options.buckets ?? DEFAULT_BUCKETS)];
  const maxTools = options.maxTools ?? DEFAULT_MAX_TOOLS;
  // The registry's own writer for the series of a few labels; the gateway's for the call series.
  const others = new Registry();
  const own = new Registry();
  // The series every call touches: plain maps, read by the registry only when scraped.
  const calls = new CallCounter(
    own,
    `${prefix}tool_calls_total`,
    'Tool calls by namespace, tool and outcome (ok, isError, or the error code)',
  );
  const durations = new LabelledHistogram(own, {
    name: `${prefix}tool_call_duration_seconds`,
    help: 'Tool call durations by namespace',
    label: 'namespace',
    buckets,
  });
  const http = new Counter({
    name: `${prefix}http_requests_total`,
    help: 'HTTP answers by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [others],
  });
  const searches = new Counter({
    name: `${prefix}search_queries_total`,
    help: 'Searches of the tool catalogue by gateway mode',
    labelNames: ['mode'] as const,
    registers: [others],
  });
  const reconnects = new Counter({
    name: `${prefix}connector_reconnects_total`,
    help: 'Times a connector went back to connecting after it had connected',
    labelNames: ['namespace'] as const,
    registers: [others],
  });
  const storeOps = new Counter({
    name: `${prefix}store_operations_total`,
    help: 'Store operations by operation and outcome',
    labelNames: ['op', 'outcome'] as const,
    registers: [others],
  });
  const storeLatency = new Histogram({
    name: `${prefix}store_operation_duration_seconds`,
    help: 'Store operation durations by operation',
    labelNames: ['op'] as const,
    buckets,
    registers: [others],
  });
  const connectionBounds = new Counter({
    name: `${prefix}http_connection_bounds_total`,
    help: 'New connections that met a connection bound, by bound and outcome (gave_way: an idle connection closed to make room; refused)',
    labelNames: ['bound', 'outcome'] as const,
    registers: [others],
  });
  const sources = new Set<MetricsSource>();
  new Gauge({
    name: `${prefix}connector_state`,
    help: 'Each connector: 1 for the state it is in, 0 for the others',
    labelNames: ['namespace', 'state'] as const,
    registers: [others],
    collect() {
      this.reset();
      for (const source of sources) {
        for (const status of source.toolkit.connectors()) {
          for (const state of CONNECTOR_STATES)
            this.set({ namespace: status.namespace, state }, status.state === state ? 1 : 0);
        }
      }
    },
  });
  /** A gauge of one label whose samples are sums, over the bound sources, of what `read` counts. */
  const summedGauge = (
    name: string,
    help: string,
    label: string,
    read: (source: MetricsSource) => Readonly<Record<string, number>> | undefined,
    values: readonly string[],
  ): void => {
    new Gauge({
      name: `${prefix}${name}`,
      help,
      labelNames: [label],
      registers: [others],
      collect() {
        const sums = new Map(values.map((value) => [value, 0]));
        for (const source of sources) {
          for (const [value, count] of Object.entries(read(source) ?? {}))
            sums.set(value, (sums.get(value) ?? 0) + count);
        }
        for (const [value, sum] of sums) this.set({ [label]: value }, sum);
      },
    });
  };
  summedGauge(
    'sessions',
    'Open sessions by MCP era (2026-07-28: requests being served, which have no session)',
    'era',
    (source) => {
      const open = source.sessions?.();
      return open && { '2025-11-25': open.legacy, [MODERN_PROTOCOL_VERSION]: open.modern };
    },
    ['2025-11-25', MODERN_PROTOCOL_VERSION],
  );
  summedGauge(
    'http_connections',
    'Open HTTP connections: idle (kept alive, nothing in flight) and active',
    'state',
    (source) => source.connections?.(),
    ['idle', 'active'],
  );

  // Every series, for whoever reads or merges the registry itself.
  const registry = Registry.merge([others, own]);
  const tools = new Set<string>();
  const toolLabel = (record: ToolCallRecord): string => {
    if (record.tool === UNKNOWN_TOOL || tools.has(record.tool)) return record.tool;
    if (tools.size >= maxTools) return OTHER_TOOL;
    tools.add(record.tool);
    return record.tool;
  };
  const observer: GatewayObserver = {
    toolCall(record) {
      calls.inc(record.namespace, toolLabel(record), record.outcome);
      durations.observe(record.namespace, record.durationMs / 1000);
    },
    httpRequest(record: HttpRequestRecord) {
      http.labels(record.route, String(record.status)).inc();
    },
    search(mode) {
      searches.labels(mode).inc();
    },
    connectionBound(record) {
      connectionBounds.labels(record.bound, record.outcome).inc();
    },
  };

  const instrumentStore = <S extends Store>(store: S): S => {
    const timed = new Map<PropertyKey, unknown>();
    for (const op of STORE_OPS) {
      const method = Reflect.get(store, op, store) as (...args: unknown[]) => Promise<unknown>;
      timed.set(op, async (...args: unknown[]) => {
        const started = performance.now();
        try {
          const result = await method.apply(store, args);
          storeOps.labels(op, 'ok').inc();
          return result;
        } catch (error) {
          storeOps.labels(op, 'error').inc();
          throw error;
        } finally {
          storeLatency.labels(op).observe((performance.now() - started) / 1000);
        }
      });
    }
    // A proxy, so that whatever else the store has (its own methods, private fields) still works.
    return new Proxy(store, {
      get(target, key) {
        if (timed.has(key)) return timed.get(key);
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
  };

  return {
    registry,
    observer,
    contentType: registry.contentType,
    scrape: async () => `${await others.metrics()}\n${calls.text()}\n\n${durations.text()}\n`,
    instrumentStore,
    bind(source) {
      sources.add(source);
      // Each namespace's connector that has connected (the namespace itself when the toolkit
      // cannot tell its connectors apart): its next `connecting` is a reconnect; a new connector
      // of the namespace (removed and added again) connecting is not.
      const { toolkit } = source;
      const which = (namespace: string): unknown => toolkit.connector?.(namespace) ?? namespace;
      const seen = new Map<string, unknown>();
      // Connectors up before the gateway was: their next `connecting` is a reconnect too.
      for (const status of toolkit.connectors()) {
        if (status.state === 'connected') seen.set(status.namespace, which(status.namespace));
      }
      const stop = toolkit.onEvent((event: ToolkitEvent) => {
        if (event.type !== 'state_change') return;
        const { namespace } = event;
        if (event.state === 'connected') seen.set(namespace, which(namespace));
        else if (event.state === 'connecting' && seen.has(namespace)) {
          if (seen.get(namespace) === which(namespace)) reconnects.labels(namespace).inc();
          else seen.delete(namespace);
        }
      });
      return () => {
        sources.delete(source);
        stop();
      };
    },
  };
}
