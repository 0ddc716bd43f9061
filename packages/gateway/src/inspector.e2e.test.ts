import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { useHttpGateway } from './testing/http-gateway.js';

const require = createRequire(import.meta.url);
// The package's `main` is the launcher of the whole inspector; build/index.js is its CLI mode.
const inspector = join(
  dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')),
  'build',
  'index.js',
);
const run = promisify(execFile);

describe('the MCP Inspector CLI through the gateway', () => {
  const gateway = useHttpGateway(useFixtureToolkit(), { token: 'inspector-secret' });

  /** Runs the Inspector CLI against the gateway and parses the JSON it prints. */
  async function inspect(...args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await run(
      process.execPath,
      [
        inspector,
        gateway.url.href,
        '--transport',
        'http',
        '--header',
        'Authorization: Bearer inspector-secret',
        ...args,
      ],
      // 1.0.3 checks for its package.json relative to the working directory but imports it
      // relative to itself: run it where both agree.
      { timeout: 30_000, cwd: dirname(inspector) },
    );
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  it('lists the tools under exposed names', async () => {
    const { tools } = await inspect('--method', 'tools/list');
    const names = (tools as { name: string }[]).map((tool) => tool.name);
    expect(names).toContain('fx__add');
    expect(names).toContain('fx__echo');
  });

  it('calls a tool', async () => {
    const result = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'fx__add',
      '--tool-arg',
      'a=2',
      'b=3',
    );
    expect(result.structuredContent).toEqual({ sum: 5 });
  });

  it('reads a resource', async () => {
    const { contents } = await inspect('--method', 'resources/read', '--uri', 'fixture://readme');
    expect(contents).toEqual([
      { uri: 'fixture://readme', mimeType: 'text/markdown', text: '# Fixture\n' },
    ]);
  });

  it('gets a prompt', async () => {
    const { messages } = await inspect(
      '--method',
      'prompts/get',
      '--prompt-name',
      'fx__echo',
      '--prompt-args',
      'text=hello',
    );
    expect(messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Repeat after me: hello' } },
    ]);
  });
});
