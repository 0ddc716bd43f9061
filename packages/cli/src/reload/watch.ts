import { realpathSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** How long the config file must stay quiet before a reload reads it, unless told otherwise. */
export const DEFAULT_DEBOUNCE_MS = 150;

/** Options of {@link watchConfigFile}. */
export interface WatchConfigOptions {
  /** Quiet time after the last event before `onChange` runs (default {@link DEFAULT_DEBOUNCE_MS}). */
  readonly debounceMs?: number;
  /** Told when the directory cannot be watched any more (it was removed, a watch limit). */
  readonly onError?: (error: Error) => void;
}

/**
 * Watches `file` for edits and calls `onChange` once the file has been quiet for `debounceMs`:
 * a burst of writes (an editor's save, a script rewriting it, a flood of edits) is one call, made
 * after the last of them, so the last edit wins.
 *
 * The directory is watched rather than the file: editors that save by writing a new file and
 * renaming it over the old one (vim, many IDEs, `mv`) replace the inode a file watch would hold,
 * and a file watch would go deaf after the first such save.
 *
 * A config reached through symbolic links (a Kubernetes ConfigMap mounts
 * `toolplane.config.yaml -> ..data/toolplane.config.yaml` and swaps the `..data` link on each
 * update) is heard too: any change in its directory counts (the link swapped is another name),
 * and the directory of the file the links lead to is watched as well (an edit written through
 * the link), followed anew after each change. Returns the stop function.
 */
export function watchConfigFile(
  file: string,
  onChange: () => void,
  options: WatchConfigOptions = {},
): () => void {
  const name = basename(file);
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  // While `file` is reached through a link: the path it leads to, and a watcher of that
  // path's directory when it is another one.
  let linked: { path: string; watcher: FSWatcher | undefined } | undefined;

  const changed = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      follow();
      onChange();
    }, debounceMs);
  };
  /** Watches `directory`, counting the changes of the names `heard` accepts. */
  const watchDirectory = (
    directory: string,
    heard: (changedName: string | null) => boolean,
    onError: (error: Error) => void,
  ): FSWatcher => {
    const watcher = watch(directory, { persistent: false });
    watcher.on('change', (_event, changedName: string | Buffer | null) => {
      if (heard(changedName === null ? null : changedName.toString())) changed();
    });
    watcher.on('error', onError);
    return watcher;
  };
  /** Follows the links to the file they lead to now. */
  const follow = (): void => {
    if (stopped) return;
    let real: string;
    try {
      real = realpathSync(file);
    } catch {
      return; // Gone for now: its directory hears it come back.
    }
    if (real === linked?.path) return;
    linked?.watcher?.close();
    linked = undefined;
    if (real === file) return;
    const realName = basename(real);
    let watcher: FSWatcher | undefined;
    if (dirname(real) !== dirname(file)) {
      try {
        // Some platforms give no name; then any change there may be ours. A target directory
        // that goes (a ConfigMap's old one) is followed anew on the next change, not reported.
        watcher = watchDirectory(
          dirname(real),
          (changedName) => changedName === null || changedName === realName,
          () => undefined,
        );
      } catch {
        watcher = undefined;
      }
    }
    linked = { path: real, watcher };
  };

  // Some platforms give no name; then any change in the directory may be ours. Through a link,
  // the name changed may be the link's own (`..data`) or its target's.
  let watcher: FSWatcher | undefined = watchDirectory(
    dirname(file),
    (changedName) => changedName === null || changedName === name || linked !== undefined,
    (error) => options.onError?.(error),
  );
  follow();
  return () => {
    stopped = true;
    clearTimeout(timer);
    watcher?.close();
    watcher = undefined;
    linked?.watcher?.close();
    linked = undefined;
  };
}
