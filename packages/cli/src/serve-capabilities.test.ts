import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { everythingCommand } from '@toolplane/fixtures';
import {
  exerciseGatedTools,
  GATED_TOOLS,
  type GatedToolsSeen,
} from '../../gateway/src/testing/everything.js';
import { binCommand, listeningUrl, SERVE_HTTP, startCli, stop } from './testing/cli-process.js';

// `toolplane serve` used the moment it serves: server-everything, started by the CLI, must have
// been told that the gateway's clients can sample and elicit, on every fresh start, over HTTP
// (served before the servers start) and over stdio (served once they are ready).
const STARTS = 3;

let dir: string;
const started: ReturnType<typeof startCli>[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-capabilities-'));
  await writeFile(
    join(dir, 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: { everything: everythingCommand() },
      naming: { transparent: 'everything' },
      store: 'memory',
    }),
  );
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => stop(child)));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function expectGatedToolsWork(seen: GatedToolsSeen, tag: string): void {
  expect(seen.names, tag).toEqual(expect.arrayContaining([...GATED_TOOLS]));
  expect(seen.sampled, tag).toContain(`sampled ${tag}`);
  expect(seen.elicited, tag).toContain(`- Name: elicited ${tag}`);
  expect(seen.asked, tag).toEqual(['sampling', 'elicitation']);
}

describe('toolplane serve in front of server-everything', () => {
  it(`lists and runs its sampling and elicitation tools over HTTP on each of ${STARTS} fresh starts`, async () => {
    for (let run = 0; run < STARTS; run++) {
      const child = startCli([...SERVE_HTTP], { cwd: dir, command: binCommand });
      started.push(child);
      const url = await listeningUrl(child);
      const tag = `http start #${run}`;
      expectGatedToolsWork(
        await exerciseGatedTools(new StreamableHTTPClientTransport(url), tag),
        tag,
      );
      await stop(child, 'SIGTERM');
    }
  }, 120_000);

  it(`lists and runs them over stdio on each of ${STARTS} fresh starts`, async () => {
    for (let run = 0; run < STARTS; run++) {
      const [command, ...args] = binCommand;
      const transport = new StdioClientTransport({
        command,
        args: [...args, 'serve', '--stdio'],
        cwd: dir,
        stderr: 'pipe',
      });
      const tag = `stdio start #${run}`;
      // The client's initialize waits in the pipe until the gateway reads it.
      expectGatedToolsWork(await exerciseGatedTools(transport, tag), tag);
    }
  }, 120_000);
});
