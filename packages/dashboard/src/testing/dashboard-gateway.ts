// A real gateway with the dashboard mounted and a fixture MCP server behind it, for the browser
// test and the first-load benchmark.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureCommand } from '@toolplane/fixtures';
import { serveHttp, type HttpGateway } from '@toolplane/gateway';
import { createToolkit, type Toolkit } from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';
import { chromium, type BrowserContext } from 'playwright-core';
import { buildApp } from '../../scripts/build-app.mjs';
import { dashboardRoutes } from '../server/routes.js';
import { createCallFeed, type CallFeed } from '../server/call-feed.js';
import { staticTokenVerifier } from '../server/routes.js';

/** A served gateway with its dashboard. */
export interface DashboardGateway {
  /** The dashboard's address, e.g. `http://127.0.0.1:49152/ui/`. */
  readonly ui: URL;
  readonly gateway: HttpGateway;
  readonly toolkit: Toolkit;
  readonly feed: CallFeed;
  close(): Promise<void>;
}

/** Builds the web app, then serves a toolkit with the fixture server as `fixture`. */
export async function startDashboardGateway(token: string): Promise<DashboardGateway> {
  await buildApp();
  const feed = createCallFeed();
  const toolkit = createToolkit({ middleware: [feed.middleware] });
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fixture' });
  const running = await runToolkit(toolkit);
  const dashboard = dashboardRoutes({ toolkit, feed, verify: staticTokenVerifier(token) });
  const gateway = await serveHttp(toolkit, { port: 0, token, routes: [dashboard] });
  return {
    ui: new URL('/ui/', gateway.url),
    gateway,
    toolkit,
    feed,
    async close() {
      dashboard.close();
      await gateway.close();
      await running.stop();
    },
  };
}

/** Debian's Chromium, headless, in a profile of its own that is removed on close. */
export async function launchChromium(): Promise<{
  context: BrowserContext;
  close(): Promise<void>;
}> {
  const profile = await mkdtemp(join(tmpdir(), 'toolplane-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
