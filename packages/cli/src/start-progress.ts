// A server that takes long to start gets a line saying so, and why when it can be told (a first
// `npx -y` run downloads the package before the server exists), instead of silence until the
// start bound ends it.
import { basename } from 'node:path';
import type { ToolkitEvent } from '@toolplane/toolkit';
import type { CliConfig } from './config.js';

/** How long a first start runs before a line says it is still going. */
export const SLOW_START_MS = 3_000;

/** Package runners that download what they run on its first use. */
const DOWNLOADERS = new Set(['npx', 'bunx', 'pnpx', 'uvx']);

/** What a slow start of `namespace` is most likely doing, for its progress line. */
function slowStartReason(cfg: CliConfig, namespace: string): string {
  const source = cfg.connectors.find((c) => c.namespace === namespace)?.source;
  if (typeof source !== 'object' || !('command' in source)) return 'still starting…';
  const runner = basename(source.command).replace(/\.(cmd|exe)$/i, '');
  if (DOWNLOADERS.has(runner)) return `${runner} is downloading…`;
  if (runner === 'pnpm' && source.args?.[0] === 'dlx') return 'pnpm dlx is downloading…';
  return 'still starting…';
}

/**
 * Hears connector events and says, once per server, `starting memory (npx is downloading…)`
 * when its first connection attempt has run {@link SLOW_START_MS}; `stop` clears what is pending.
 */
export function startProgress(
  cfg: CliConfig,
  say: (line: string) => void,
): { onEvent: (event: ToolkitEvent) => void; stop: () => void } {
  const timers = new Map<string, NodeJS.Timeout>();
  const settled = new Set<string>();
  let stopped = false;
  return {
    onEvent: (event) => {
      if (stopped || event.type !== 'state_change') return;
      const { namespace, state } = event;
      if (state === 'connecting') {
        if (settled.has(namespace) || timers.has(namespace)) return;
        const timer = setTimeout(() => {
          say(`starting ${namespace} (${slowStartReason(cfg, namespace)})`);
        }, SLOW_START_MS);
        timer.unref();
        timers.set(namespace, timer);
        return;
      }
      // Only the first attempt: a reconnect has its own lines.
      settled.add(namespace);
      clearTimeout(timers.get(namespace));
      timers.delete(namespace);
    },
    stop: () => {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
