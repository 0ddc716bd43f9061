import { watch, type FSWatcher } from 'node:fs';
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
 * and a file watch would go deaf after the first such save. Returns the stop function.
 */
export function watchConfigFile(
  file: string,
  onChange: () => void,
  options: WatchConfigOptions = {},
): () => void {
  const name = basename(file);
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined = watch(dirname(file), { persistent: false });
  watcher.on('change', (_event, changed: string | Buffer | null) => {
    // Some platforms give no name; then any change in the directory may be ours.
    if (changed !== null && changed.toString() !== name) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  });
  watcher.on('error', (error) => {
    options.onError?.(error);
  });
  return () => {
    clearTimeout(timer);
    watcher?.close();
    watcher = undefined;
  };
}
