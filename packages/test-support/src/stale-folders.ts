// A test run names its folders by its process ID and removes them in its teardown; a run that was
// killed leaves them behind, and the next run removes them.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Whether a process lives (under any user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the folders in `root` of runs that ended without their teardown (killed): those whose
 * name `pattern` matches with, as its first group, the process ID of a run no longer alive.
 */
export async function removeStale(root: string, pattern: RegExp): Promise<void> {
  const names = await readdir(root).catch(() => [] as string[]);
  const stale = names.filter((name) => {
    const pid = pattern.exec(name)?.[1];
    return pid !== undefined && !alive(Number(pid));
  });
  await Promise.all(stale.map((name) => rm(join(root, name), { recursive: true, force: true })));
}
