import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningUrl, SERVE_HTTP, startCli, stop } from './testing/cli-process.js';

// The tools themselves are tested in @toolplane/builtins; this proves the CLI wires them: its
// config sizes their worker pool, its worker threads start from the CLI's process, and its
// validator (ajv) refuses an oversized text before any tool runs.
let dir: string;
let gateway: ChildProcess;
let client: Client;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-builtins-'));
  await writeFile(
    join(dir, 'toolplane.config.yaml'),
    'store: memory\nbuiltinWorkers: { threads: 2, perCaller: 1 }\n',
  );
  gateway = startCli([...SERVE_HTTP], { cwd: dir });
  client = new Client({ name: 'builtins-served-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(await listeningUrl(gateway)));
});

afterAll(async () => {
  await client.close();
  await stop(gateway, 'SIGTERM');
  await rm(dir, { recursive: true, force: true });
});

describe('the builtins behind the CLI gateway', () => {
  it('counts 80k characters on a worker, and refuses 4M with the limit named', async () => {
    const sentences = 6_667;
    const counted = await client.callTool(
      { name: 'builtin__text_stats', arguments: { text: 'Some words. '.repeat(sentences) } },
      { timeout: 60_000 },
    );
    expect(counted.isError).not.toBe(true);
    expect(counted.structuredContent).toMatchObject({ words: sentences * 2, sentences });

    const huge = await client.callTool({
      name: 'builtin__text_stats',
      arguments: { text: 'a'.repeat(4_000_000) },
    });
    expect(huge.isError).toBe(true);
    const text = huge.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(text).toMatch(/text must NOT have more than 1000000 characters/);
  });
});
