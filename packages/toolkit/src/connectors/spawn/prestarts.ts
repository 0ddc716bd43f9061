import { StdioChild, type StdioSpawnOptions } from './stdio-child.js';

/** Two sources start the same child when command, arguments, environment and folder agree. */
function keyOf(source: StdioSpawnOptions): string {
  return JSON.stringify([source.command, source.args ?? [], source.env ?? {}, source.cwd ?? null]);
}

/**
 * Stdio servers started before the toolkit that will talk to them exists: the CLI starts them as
 * soon as it has read its config, so that their start overlaps its own loading. A connector whose
 * stdio source names this pool (`StdioSource.prestarted`) adopts, on its first attempt, a child
 * started from an equal source instead of spawning one; {@link dispose} ends every child nobody
 * adopted (a server filtered out, a config refused later, an error on the way).
 */
export class StdioPrestarts {
  readonly #waiting = new Map<string, StdioChild[]>();
  readonly #release: boolean;
  #disposed = false;

  /**
   * `release`: the connectors will release these children (`StdioSource.closing: 'release'`, a
   * one-shot command's), so each child's reaper is armed as it starts (`StdioChild.armReaper`).
   */
  constructor(options: { readonly release?: boolean } = {}) {
    this.#release = options.release === true;
  }

  /** Spawns a child for `source` now, kept for {@link take}. Nothing once disposed. */
  start(source: StdioSpawnOptions): void {
    if (this.#disposed) return;
    const key = keyOf(source);
    const list = this.#waiting.get(key) ?? [];
    const child = new StdioChild(source);
    if (this.#release) child.armReaper();
    list.push(child);
    this.#waiting.set(key, list);
  }

  /** A child started from a source equal to `source`, handed over once; undefined if none. */
  take(source: StdioSpawnOptions): StdioChild | undefined {
    const key = keyOf(source);
    const list = this.#waiting.get(key);
    const child = list?.shift();
    if (list?.length === 0) this.#waiting.delete(key);
    return child;
  }

  /** How many children wait to be adopted. */
  get size(): number {
    let n = 0;
    for (const list of this.#waiting.values()) n += list.length;
    return n;
  }

  /** Ends every child not adopted (see `StdioChild.discard`); later starts spawn nothing. */
  dispose(): void {
    this.#disposed = true;
    for (const list of this.#waiting.values()) for (const child of list) child.discard();
    this.#waiting.clear();
  }
}
