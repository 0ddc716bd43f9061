// A real gateway with the dashboard mounted and a fixture MCP server behind it, for the browser
// test and the first-load benchmark.
import { fixtureCommand } from '@toolplane/fixtures';
import { serveHttp, type HttpGateway } from '@toolplane/gateway';
import {
  createMemoryPinStore,
  createToolkit,
  type DefinedTool,
  type Logger,
  type Middleware,
  type PinStore,
  type Toolkit,
  type ToolkitApprovalOptions,
} from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';
import { buildApp } from '../../scripts/build-app.mjs';
import { dashboardRoutes, type DashboardOptions } from '../server/routes.js';
import { createCallFeed, type CallFeed } from '../server/call-feed.js';
import { staticTokenVerifier } from '../server/routes.js';

/** A served gateway with its dashboard. */
export interface DashboardGateway {
  /** The dashboard's address, e.g. `http://127.0.0.1:49152/ui/`. */
  readonly ui: URL;
  readonly gateway: HttpGateway;
  readonly toolkit: Toolkit;
  readonly feed: CallFeed;
  /** The pin store, with {@link DashboardGatewayOptions.pinning}. */
  readonly pins: PinStore | undefined;
  close(): Promise<void>;
}

/** Options of {@link startDashboardGateway}. */
export interface DashboardGatewayOptions {
  /** Pins the fixture's tools (in a memory pin store the dashboard is given). */
  readonly pinning?: 'block' | 'warn';
  /** Builtin tools besides the fixture server's. */
  readonly tools?: readonly DefinedTool[];
  /** The toolkit's approval policy (the call feed is an observer, so it sees its calls). */
  readonly approval?: ToolkitApprovalOptions;
  /** The toolkit's runner middleware (a `timeout`, say). */
  readonly middleware?: readonly Middleware[];
  /**
   * The gateway's `requestStateKey`, as a fleet's instance has one: an approval round it sends a
   * 2026-07-28 client is handed on to the client's retry (`replayRounds: 'always'`).
   */
  readonly requestStateKey?: string;
  /** The dashboard's `visible` (default: every tool). */
  readonly visible?: DashboardOptions['visible'];
  /** The dashboard's `logger`. */
  readonly logger?: Logger;
}

/** Builds the web app, then serves a toolkit with the fixture server as `fixture`. */
export async function startDashboardGateway(
  token: string,
  options: DashboardGatewayOptions = {},
): Promise<DashboardGateway> {
  await buildApp();
  const feed = createCallFeed();
  const pins = options.pinning === undefined ? undefined : createMemoryPinStore();
  const toolkit = createToolkit({
    observers: [feed.middleware],
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.approval === undefined ? {} : { approval: options.approval }),
    ...(options.middleware === undefined ? {} : { middleware: options.middleware }),
    ...(pins === undefined || options.pinning === undefined
      ? {}
      : { pinning: { mode: options.pinning, store: pins, who: 'gateway' } }),
  });
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fixture' });
  const running = await runToolkit(toolkit);
  const dashboard = dashboardRoutes({
    toolkit,
    feed,
    verify: staticTokenVerifier(token),
    ...(pins === undefined ? {} : { pins }),
    ...(options.visible === undefined ? {} : { visible: options.visible }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const gateway = await serveHttp(toolkit, {
    port: 0,
    token,
    routes: [dashboard],
    ...(options.requestStateKey === undefined ? {} : { requestStateKey: options.requestStateKey }),
  });
  return {
    ui: new URL('/ui/', gateway.url),
    gateway,
    toolkit,
    feed,
    pins,
    async close() {
      dashboard.close();
      await gateway.close();
      await running.stop();
      await pins?.close();
    },
  };
}
