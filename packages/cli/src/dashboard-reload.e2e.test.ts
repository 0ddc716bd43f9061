// Issue 33: the dashboard of a real `toolplane serve --http` shows a server added by editing the
// config file, on the page already open, without a reload.
import type { ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchChromium, buildApp } from '@toolplane/dashboard/testing';
import { fixtureCommand, repoRoot } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  binCommand,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';

const TOKEN = 'a-dashboard-reload-token-0123';
const OUT = join(repoRoot, '.ci', 'out');
const fixture = fixtureCommand('stdio');
const dir = useTempDir('dashboard-reload');

/** A config with the fixture server under each name. */
function config(names: readonly string[]): string {
  const mcpServers = Object.fromEntries(
    names.map((name) => [name, { command: fixture.command, args: fixture.args }]),
  );
  return JSON.stringify({ mcpServers, store: 'memory', builtins: false }, null, 2);
}

describe(
  'the dashboard of toolplane serve, as the config file changes',
  { timeout: 90_000 },
  () => {
    let child: ChildProcess | undefined;
    let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;

    beforeAll(async () => {
      await Promise.all([buildApp(), mkdir(OUT, { recursive: true })]);
    });
    afterAll(async () => {
      await chromium?.close();
      // SIGTERM: the CLI ends the servers it started.
      if (child !== undefined) await stop(child, 'SIGTERM');
    });

    it('shows a server the config file adds, its tools and its pin changes, on the open page', async () => {
      const file = join(dir(), 'toolplane.config.json');
      await writeFile(file, config(['alpha']));
      child = startCli([...SERVE_HTTP, '--config', file], {
        command: binCommand,
        cwd: dir(),
        env: { TOOLPLANE_TOKEN: TOKEN },
      });
      const ui = new URL('/ui/', await listeningUrl(child));
      chromium = await launchChromium();
      const page = await chromium.context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));

      await page.goto(`${ui.href}#/connectors`);
      await page.getByLabel('Gateway token').fill(TOKEN);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.locator('tr[data-namespace="alpha"] .state.connected').waitFor();
      await page.locator('.live.on').waitFor();
      // A second tab on the catalogue (the session cookie is the context's): both are open before
      // the edit, and both must show the new server live.
      const tools = await chromium.context.newPage();
      tools.on('pageerror', (error) => pageErrors.push(error.message));
      await tools.goto(`${ui.href}#/tools`);
      await tools.locator('[data-tool="alpha:echo"]').waitFor();
      await tools.locator('.live.on').waitFor();
      expect(await tools.locator('[data-tool^="beta:"]').count()).toBe(0);
      // Kept only as long as a page is not reloaded.
      for (const open of [page, tools]) {
        await open.evaluate(() => {
          (globalThis as { marker?: string }).marker = 'same page';
        });
      }

      const reloaded = waitForStderr(child, /config reloaded from \S+: \+beta/);
      await writeFile(file, config(['alpha', 'beta']));
      await reloaded;
      await page.locator('tr[data-namespace="beta"] .state.connected').waitFor();
      await tools.locator('[data-tool="beta:echo"]').waitFor();
      await tools.locator('[data-tool="beta:add"]').waitFor();
      for (const open of [page, tools]) {
        expect(await open.evaluate(() => (globalThis as { marker?: string }).marker)).toBe(
          'same page',
        );
      }
      await tools.screenshot({ path: join(OUT, 'dashboard-reload-tools.png'), fullPage: true });
      await page.screenshot({ path: join(OUT, 'dashboard-reload.png'), fullPage: true });

      // The served pin store reaches the Changes page: a server changing a tool (pinning's default,
      // `warn`, serves it flagged) shows there with its diff, and is accepted from the page.
      await tools.goto(`${ui.href}#/tools/beta%3Achange-echo`);
      await tools.locator('input[name="description"]').fill('Now also deletes files.');
      await tools.getByRole('button', { name: 'Call' }).click();
      await tools.locator('#result').waitFor();
      await page.getByRole('link', { name: 'Changes' }).click();
      const change = page.locator('[data-change="beta:echo"]');
      await change.waitFor();
      expect(await change.locator('pre.diff').textContent()).toContain(
        '+  Now also deletes files.',
      );
      await change.getByRole('button', { name: 'Accept' }).click();
      await page.locator('#no-changes').waitFor();
      expect(pageErrors).toEqual([]);
    });
  },
);
