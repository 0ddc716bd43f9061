// The dashboard `serve --http` mounts at /ui, behind the gateway's own token or OAuth.
import {
  DASHBOARD_SESSION,
  dashboardRoutes,
  staticTokenVerifier,
  type CallFeed,
  type DashboardCall,
  type DashboardRoutes,
  type LoginProof,
} from '@toolplane/dashboard';
import type { GatewayAuth, GatewayObserver } from '@toolplane/gateway';
import { ToolError, type Logger, type PinStore, type Toolkit } from '@toolplane/toolkit';
import { isAllowed, type CliConfig } from '../config.js';
import type { Output } from '../output.js';

/** What {@link mountDashboard} needs. */
export interface MountDashboardOptions {
  readonly toolkit: Toolkit;
  readonly cfg: CliConfig;
  /**
   * The tool filters in force now (default `cfg`'s): a reloaded config's, so that a tool an edit
   * denies leaves the dashboard as it leaves the MCP endpoint.
   */
  readonly filter?: () => CliConfig['filter'];
  readonly token: string | undefined;
  readonly auth: GatewayAuth | undefined;
  readonly feed?: CallFeed;
  /** The pin store, for the Changes page (pending pin changes, accepted from the page). */
  readonly pins?: PinStore;
  /** The MCP endpoint once listening: OAuth tokens are checked for it. */
  readonly endpoint: () => URL | undefined;
  /** Hears the calls made from the dashboard as the gateway's calls are heard (metrics, log). */
  readonly observer?: GatewayObserver | undefined;
  /** Where a dashboard failure that is not a `ToolError` is logged (its answer is a bare 500). */
  readonly logger?: Logger;
}

/**
 * The dashboard for this gateway: its login takes the static token, or (with OAuth) an access
 * token the gateway would accept, checked the same way; it shows and calls only the tools the
 * config's filters let through, as they stand after the latest reload. A dashboard whose web app was not built is skipped with a warning, so
 * the gateway still serves.
 */
export function mountDashboard(
  output: Output,
  options: MountDashboardOptions,
): DashboardRoutes | undefined {
  const { token, auth, cfg } = options;
  const filter = options.filter ?? (() => cfg.filter);
  let verify:
    ((given: string, o: { signal: AbortSignal }) => Promise<LoginProof | false>) | undefined;
  if (token !== undefined) verify = staticTokenVerifier(token);
  else if (auth !== undefined) {
    verify = async (given, { signal }) => {
      const endpoint = options.endpoint();
      if (endpoint === undefined) return false;
      const caller = await auth.authenticate(`Bearer ${given}`, { endpoint, signal });
      return caller.expiresAt === undefined ? true : { expiresAt: caller.expiresAt * 1000 };
    };
  }
  try {
    return dashboardRoutes({
      toolkit: options.toolkit,
      ...(options.feed === undefined ? {} : { feed: options.feed }),
      // With pinning off the store keeps only approvals' audit log: no changes to show.
      ...(options.pins === undefined || cfg.pinning === 'off' ? {} : { pins: options.pins }),
      ...(verify === undefined ? {} : { verify }),
      visible: (tool) => isAllowed(filter()[tool.namespace ?? ''], tool),
      ...(options.observer?.toolCall === undefined ? {} : { onCall: callHeard(options.observer) }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  } catch (error) {
    if (!ToolError.isInstance(error) || error.code !== 'invalid_config') throw error;
    output.say(`${output.errColor.yellow('warning')} no dashboard at /ui: ${error.message}`);
    return undefined;
  }
}

/** A dashboard call told to the gateway's observer as one of its calls, from session `dashboard`. */
function callHeard(observer: GatewayObserver): (call: DashboardCall) => void {
  return (call) => {
    observer.toolCall?.({
      namespace: call.namespace,
      tool: call.tool,
      outcome: call.outcome,
      durationMs: call.durationMs,
      sessionId: DASHBOARD_SESSION,
      subject: undefined,
      requestId: undefined,
      args: call.args,
    });
  };
}
