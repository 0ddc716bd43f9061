import { fileURLToPath } from 'node:url';
import { BUILTIN_NAMESPACE, createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpGateway } from './http/serve.js';
import { runConformance } from './testing/conformance.js';
import { createConformanceToolkit } from './testing/conformance-toolkit.js';

describe('MCP conformance', () => {
  const fixture = createConformanceToolkit();
  // The same gateway in front, its upstream (a gateway too) spoken to in the 2025 era and in
  // 2026-07-28, which the connector picks by itself against a server of both eras.
  const upstream = createToolkit();
  const modernUpstream = createToolkit();
  let running: RunningToolkit;
  let runningModern: RunningToolkit;
  let served: HttpGateway;
  let gateway: HttpGateway;
  let modernGateway: HttpGateway;

  beforeAll(async () => {
    served = await serveHttp(fixture, { port: 0, transparent: BUILTIN_NAMESPACE });
    upstream.addConnector(served.url.href, { namespace: 'conformance', era: '2025' });
    modernUpstream.addConnector(served.url.href, { namespace: 'conformance' });
    running = await runToolkit(upstream);
    runningModern = await runToolkit(modernUpstream);
    gateway = await serveHttp(upstream, { port: 0, transparent: 'conformance' });
    modernGateway = await serveHttp(modernUpstream, { port: 0, transparent: 'conformance' });
  });
  afterAll(async () => {
    await modernGateway.close();
    await gateway.close();
    await runningModern.stop();
    await running.stop();
    await served.close();
    await fixture.close();
  });

  it('passes every active server scenario against a toolkit of builtins', async () => {
    const { code, output } = await runConformance(served.url);
    expect(output).toMatch(/Total: \d+ passed, 0 failed/);
    expect(code, output).toBe(0);
  });

  it('passes every active server scenario through a transparent gateway in front of it', async () => {
    const { code, output } = await runConformance(gateway.url);
    expect(output).toMatch(/Total: \d+ passed, 0 failed/);
    expect(code, output).toBe(0);
  });

  it('passes them through a gateway whose upstream speaks 2026-07-28, resource subscriptions included', async () => {
    expect(modernUpstream.connectors()[0]?.era).toBe('2026');
    const { code, output } = await runConformance(modernGateway.url, {
      expectedFailures: fileURLToPath(
        new URL('../conformance-expected-failures-2026-upstream.yaml', import.meta.url),
      ),
    });
    expect(output).toMatch(/tools-call-sampling: 1 passed, 0 failed/);
    expect(output).toMatch(/tools-call-elicitation: 1 passed, 0 failed/);
    expect(code, output).toBe(0);
  });
});
