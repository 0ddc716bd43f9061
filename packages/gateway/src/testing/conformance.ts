// The MCP conformance suite's server mode as a test step, and the conformance fixture server as a
// child process, for the gateway's tests and for the CLI's (which put `toolplane serve` in front).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  entryArgs,
  startHttpFixture,
  type HttpFixture,
  type ServerCommand,
} from '@toolplane/fixtures';

const require = createRequire(import.meta.url);
const suite = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const baseline = fileURLToPath(
  new URL('../../conformance-expected-failures.yaml', import.meta.url),
);
const serverEntry = fileURLToPath(new URL('./conformance-server.ts', import.meta.url));

/** What one run of the conformance suite ended with. */
export interface ConformanceRun {
  readonly code: number | null;
  readonly output: string;
}

/**
 * Runs the conformance server suite against `url` with the package's expected-failures baseline;
 * resolves with its exit code and output (killed after `timeoutMs`, default 90 s).
 */
export function runConformance(
  url: URL | string,
  {
    timeoutMs = 90_000,
    expectedFailures = baseline,
  }: { readonly timeoutMs?: number; readonly expectedFailures?: string } = {},
): Promise<ConformanceRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [suite, 'server', '--url', String(url), '--expected-failures', expectedFailures],
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
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * The command that runs the conformance fixture toolkit (see `createConformanceToolkit`) in a
 * child process with its builtins unprefixed: over stdio, or over Streamable HTTP on 127.0.0.1
 * at /mcp (announcing its port as `LISTENING <port>` on stdout).
 */
export function conformanceServerCommand(mode: 'stdio' | 'http'): ServerCommand {
  return { command: process.execPath, args: [...entryArgs(serverEntry), mode] };
}

/**
 * Starts {@link conformanceServerCommand} over HTTP; resolves once it listens.
 */
export function startConformanceServer(): Promise<HttpFixture> {
  return startHttpFixture({
    server: conformanceServerCommand('http'),
    path: '/mcp',
    startTimeoutMs: 30_000,
  });
}
