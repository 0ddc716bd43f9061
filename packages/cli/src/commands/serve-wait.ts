// `serve`'s start-up wait: the URL is printed once every server has had its first attempt.
import { ToolError } from '@toolplane/toolkit';
import type { ServeLog } from '../observe/serve-log.js';
import type { OpenToolkit } from '../open.js';

/**
 * Waits until every server has connected or failed its first attempt, at most `ms`: a client
 * that lists tools the moment the URL is printed then sees every server's tools. A server
 * still connecting after that is named and joins when it connects.
 */
export async function waitForServers(
  log: ServeLog,
  opened: OpenToolkit,
  ms: number,
  stopped: AbortSignal,
): Promise<void> {
  const { toolkit } = opened;
  if (toolkit.connectors().length === 0) return;
  const timeUp = AbortSignal.timeout(ms);
  try {
    await toolkit.ready({ signal: AbortSignal.any([stopped, timeUp]) });
  } catch (error) {
    if (!ToolError.isInstance(error) || error.code !== 'cancelled') throw error;
    if (stopped.aborted) return;
    const waiting = toolkit
      .connectors()
      .filter((status) => status.state === 'connecting')
      .map((status) => status.namespace);
    log.warn(
      `${log.json ? '' : `${log.warnWord} `}still connecting after ${ms} ms: ${waiting.join(', ')}; serving without them until they connect (waitMs in the config or --wait-ms waits longer)`,
    );
  }
}
