import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { BUILTIN_NAMESPACE, createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpGateway } from './http.js';
import { createConformanceToolkit } from './testing/conformance-toolkit.js';

const require = createRequire(import.meta.url);
const cli = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const baseline = fileURLToPath(new URL('../conformance-expected-failures.yaml', import.meta.url));

/** Runs the conformance server suite against `url`; resolves with its exit code and output. */
function conformance(url: URL): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [cli, 'server', '--url', url.href, '--expected-failures', baseline],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const collect = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

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
    const { code, output } = await conformance(served.url);
    expect(output).toMatch(/Total: \d+ passed, 0 failed/);
    expect(code, output).toBe(0);
  });

  it('passes every active server scenario through a transparent gateway in front of it', async () => {
    const { code, output } = await conformance(gateway.url);
    expect(output).toMatch(/Total: \d+ passed, 0 failed/);
    expect(code, output).toBe(0);
  });
});
