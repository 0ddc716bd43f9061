import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startHttpFixture, type HttpFixture } from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpGateway } from './http.js';

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

describe('MCP conformance through the gateway', () => {
  let fixture: HttpFixture;
  let gateway: HttpGateway;
  const stop = new AbortController();
  let running: Promise<void>;

  beforeAll(async () => {
    fixture = await startHttpFixture({ server: 'conformance' });
    const toolkit = createToolkit();
    toolkit.addConnector(fixture.url.href, { namespace: 'conformance' });
    running = toolkit.run({ signal: stop.signal });
    await toolkit.ready();
    gateway = await serveHttp(toolkit, { port: 0, transparent: 'conformance' });
  });
  afterAll(async () => {
    await gateway.close();
    stop.abort();
    await running;
    await fixture.close();
  });

  it('passes every active server scenario with the upstream in transparent mode', async () => {
    const { code, output } = await conformance(gateway.url);
    expect(output).toMatch(/Total: \d+ passed, 0 failed/);
    expect(code, output).toBe(0);
  });
});
