import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { entryArgs } from '@toolplane/fixtures';

const require = createRequire(import.meta.url);
const cli = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const packageDir = fileURLToPath(new URL('../../..', import.meta.url));
// The CLI splits its --command on spaces: a checkout whose path has one cannot run this.
const clientCommand = [
  process.execPath,
  ...entryArgs(fileURLToPath(new URL('./conformance-client.ts', import.meta.url))),
].join(' ');

/** What one run of the conformance CLI printed, and how it exited. */
export interface ConformanceRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the conformance CLI's `client` command against the toolkit-based client
 * (`conformance-client.ts`) with `args` (a `--scenario` or a `--suite` and their options), in
 * the package folder; killed after `timeoutMs`.
 */
export function runConformanceClient(
  args: readonly string[],
  timeoutMs: number,
): Promise<ConformanceRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'client', '--command', clientCommand, ...args], {
      cwd: packageDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
