import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from './define-tool.js';
import { runInSession } from './session.js';
import { runToolkit } from './testing/run-toolkit.js';
import { createToolkit, type Toolkit } from './toolkit/toolkit.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('toolkit-test');

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const traceparent = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  context.disable();
  propagation.disable();
  trace.disable();
});

let toolkit: Toolkit | undefined;
afterEach(async () => {
  exporter.reset();
  await toolkit?.close();
});

const echo = defineTool({
  name: 'echo',
  description: 'Echo.',
  input: { type: 'object', properties: { secret: { type: 'string' } } },
  run: (input) => input,
});
const fail = defineTool({
  name: 'fail',
  description: 'Fails.',
  input: { type: 'object' },
  run: () => {
    throw new Error('boom');
  },
});

describe('tracing', () => {
  it('makes a span per call, a child of the inbound traceparent, without the arguments', async () => {
    toolkit = createToolkit({ tools: [echo], tracer });
    await toolkit.call('echo', { secret: 'hunter2' }, { meta: { traceparent } });
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('tool builtin:echo');
    expect(span?.spanContext().traceId).toBe(CALLER_TRACE);
    expect(span?.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(span?.attributes).toMatchObject({
      'toolplane.id': 'builtin:echo',
      'toolplane.namespace': 'builtin',
      'toolplane.backend': 'local',
      'toolplane.outcome': 'ok',
    });
    expect(JSON.stringify(span?.attributes)).not.toContain('hunter2');
  });

  it('records the verified caller of a served call, never a token', async () => {
    toolkit = createToolkit({ tools: [echo], tracer });
    const auth = {
      subject: 'alice',
      clientId: 'client-a',
      scopes: ['tools:read', 'tools:write'],
      issuer: 'https://as.example.com',
      expiresAt: 1,
    };
    await runInSession({ auth }, () => toolkit?.call('echo', {}));
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes).toMatchObject({
      'enduser.id': 'alice',
      'toolplane.client_id': 'client-a',
      'enduser.scope': 'tools:read tools:write',
    });
  });

  it('records no caller when none was verified', async () => {
    toolkit = createToolkit({ tools: [echo], tracer });
    await toolkit.call('echo', {});
    const [span] = exporter.getFinishedSpans();
    expect(Object.keys(span?.attributes ?? {}).filter((k) => k.startsWith('enduser.'))).toEqual([]);
  });

  it('records a failure with its error code', async () => {
    toolkit = createToolkit({ tools: [fail], tracer });
    await expect(toolkit.call('fail')).rejects.toThrow();
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes).toMatchObject({
      'toolplane.outcome': 'error',
      'toolplane.error_code': 'execution',
    });
    expect(span?.status.code).toBe(2); // ERROR
  });

  it('sends the current trace context to an upstream MCP server in _meta', async () => {
    toolkit = createToolkit({ tracer });
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const { stop } = await runToolkit(toolkit);
    const answer = await toolkit.call('fx:meta', {}, { meta: { traceparent } });
    const sent = JSON.parse(answer?.text ?? '{}') as { traceparent?: string };
    const [span] = exporter.getFinishedSpans();
    expect(sent.traceparent).toBe(`00-${CALLER_TRACE}-${span?.spanContext().spanId ?? ''}-01`);
    await stop();
  });
});
