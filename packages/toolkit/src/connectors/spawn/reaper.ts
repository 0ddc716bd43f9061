// The reaper of a released stdio server: a one-shot command (`toolplane tools list`) prints its
// answer and exits without waiting for its servers to exit, and leaves behind a detached `sh`
// that ends a server's process group should the server ignore the end of its input. Kept with
// the spawn module (free of the MCP SDK), so that the CLI can arm a reaper as it starts a server.
import { spawn, type ChildProcess } from 'node:child_process';

/** How long a server has to exit after its stdin closes, then after SIGTERM, before SIGKILL. */
export const EXIT_GRACE_MS = 1_000;

const ignore = (): void => undefined;

/**
 * The `sh` script of a reaper of the group `pid` leads: SIGTERM after a grace, SIGKILL after
 * another; when `waits`, only once a line has come on its stdin (its end without one: nothing).
 * A kill of a group that has gone already fails, silently, and ends the script.
 */
function reaperScript(pid: number, waits: boolean): string {
  const grace = String(EXIT_GRACE_MS / 1_000);
  const group = String(-pid);
  const kill = `sleep ${grace}; kill -s TERM -- ${group} 2>/dev/null || exit 0; sleep ${grace}; kill -s KILL -- ${group} 2>/dev/null`;
  return waits ? `read -r _ || exit 0; ${kill}` : kill;
}

/**
 * Starts, before it is needed, the reaper of the group `pid` leads, waiting for its word (see
 * {@link releaseGroup}); the end of its stdin without one ends it doing nothing, so a reaper
 * never needed goes with this process or with {@link disarmReaper}. Spawning forks this whole
 * process, a few ms of a large one: armed early (as the server starts, or while a command waits
 * for the server's first answer), a command does not pay it between its answer and its exit.
 * Its pipe and process are unreferenced: it never keeps this process alive. `undefined` when it
 * could not be spawned (the release spawns one then).
 */
export function armReaper(pid: number): ChildProcess | undefined {
  let reaper: ChildProcess;
  try {
    reaper = spawn('/bin/sh', ['-c', reaperScript(pid, true)], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
  } catch {
    return undefined;
  }
  reaper.on('error', ignore);
  reaper.stdin?.on('error', ignore);
  (reaper.stdin as { unref?: () => void } | null)?.unref?.();
  reaper.unref();
  return reaper;
}

/** Ends a reaper {@link armReaper} started that is not going to be needed. */
export function disarmReaper(reaper: ChildProcess | undefined): void {
  reaper?.stdin?.destroy();
}

/**
 * Lets the group `pid` leads go with a reaper behind it: `reaper`, armed earlier, is given its
 * word; without one (or if it has gone), one is spawned that starts counting at once.
 */
export function releaseGroup(pid: number, reaper: ChildProcess | undefined): void {
  if (reaper?.stdin?.writable === true && reaper.exitCode === null) {
    // A small write to an idle pipe goes out at once, before this process can exit.
    reaper.stdin.end('go\n');
    return;
  }
  disarmReaper(reaper);
  spawn('/bin/sh', ['-c', reaperScript(pid, false)], { detached: true, stdio: 'ignore' }).unref();
}
