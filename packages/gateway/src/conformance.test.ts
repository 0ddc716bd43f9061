import { BUILTIN_NAMESPACE, createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpGateway } from './http.js';
import { runConformance } from './testing/conformance.js';
import { createConformanceToolkit } from './testing/conformance-toolkit.js';

describe('MCP conformance', () => {
  const fixture = createConformanceToolkit();
  const upstream = createToolkit();
  let running: RunningToolkit;
  let served: HttpGateway;
  let gateway: HttpGateway;

  beforeAll(async () => {
    served = await serveHttp(fixture, { port: 0, transparent: BUILTIN_NAMESPACE });
    upstream.addConnector(served.url.href, { namespace: 'conformance' });
    running = await runToolkit(upstream);
    gateway = await serveHttp(upstream, { port: 0, transparent: 'conformance' });
  });
  afterAll(async () => {
    await gateway.close();
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
});
