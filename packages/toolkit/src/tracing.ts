import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Tracer,
} from '@opentelemetry/api';
import { ToolError } from '@toolplane/toolmodel';
import { getSession } from './session.js';

/** What a traced call is about; becomes the span's name and attributes. */
export interface CallTrace {
  readonly kind: 'tool' | 'prompt' | 'resource';
  readonly id: string;
  readonly namespace: string;
  /** The backend kind (`local`, `mcp`, `provider`) or source of the item. */
  readonly backend: string;
  /** The request's `_meta`; a W3C `traceparent`/`tracestate` there makes the span its child. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
}

const getter = {
  keys: (carrier: Readonly<Record<string, unknown>>) => Object.keys(carrier),
  get: (carrier: Readonly<Record<string, unknown>>, key: string) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

function parentContext(meta: Readonly<Record<string, unknown>> | undefined): Context {
  const active = context.active();
  if (meta === undefined || typeof meta.traceparent !== 'string') return active;
  return propagation.extract(active, meta, getter);
}

/** The verified caller (`getSession().auth`) as span attributes: who, never the token. */
function callerAttributes(): Record<string, string> {
  const auth = getSession().auth;
  if (auth === undefined) return {};
  return {
    ...(auth.subject === undefined ? {} : { 'enduser.id': auth.subject }),
    ...(auth.clientId === undefined ? {} : { 'toolplane.client_id': auth.clientId }),
    'enduser.scope': auth.scopes.join(' '),
  };
}

/**
 * Runs `fn` inside a span for one call: named `<kind> <id>`, with the tool ID, namespace and
 * backend as attributes and the outcome (and error code) set when it settles. Arguments are
 * never recorded. With no OpenTelemetry SDK installed the API is a no-op and this costs little.
 */
export async function traced<T>(tracer: Tracer, call: CallTrace, fn: () => Promise<T>): Promise<T> {
  const span = tracer.startSpan(
    `${call.kind} ${call.id}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'toolplane.kind': call.kind,
        'toolplane.id': call.id,
        'toolplane.namespace': call.namespace,
        'toolplane.backend': call.backend,
        ...callerAttributes(),
      },
    },
    parentContext(call.meta),
  );
  // No tracer installed and no trace to join: the span records nothing and carries no context
  // a request could propagate, so the call runs without entering a context of its own.
  if (!span.isRecording() && !isSpanContextValid(span.spanContext())) {
    try {
      return await fn();
    } finally {
      span.end();
    }
  }
  try {
    const result = await context.with(trace.setSpan(context.active(), span), fn);
    span.setAttribute('toolplane.outcome', 'ok');
    return result;
  } catch (error) {
    span.setAttribute('toolplane.outcome', 'error');
    if (ToolError.isInstance(error)) span.setAttribute('toolplane.error_code', error.code);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * `meta` plus the current trace context (`traceparent`, `tracestate`), for an outbound MCP
 * request's `_meta`, so the upstream server's spans join the caller's trace.
 */
export function withTraceContext(
  meta: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  if (Object.keys(carrier).length === 0) return meta === undefined ? undefined : { ...meta };
  return { ...meta, ...carrier };
}
