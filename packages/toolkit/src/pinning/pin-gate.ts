import { ToolError } from '@toolplane/toolmodel';
import type { Logger } from '../session.js';
import { fingerprintTool, type PinnableTool } from './fingerprint.js';
import { changedFields } from './pin-diff.js';
import type { Pin, PinChange, PinStore } from './pin-types.js';

/**
 * What a toolkit does with a tool whose server now offers a definition other than its pin:
 * `block` withholds it (not listed, calls refused) until it is accepted, `warn` serves it and
 * logs and flags it, `off` pins nothing.
 */
export type PinningMode = 'block' | 'warn' | 'off';

/** The toolkit's `pinning` option in full. */
export interface PinningOptions {
  readonly mode: PinningMode;
  /** Where pins live; default a fresh {@link createMemoryPinStore}. */
  readonly store?: PinStore;
  /** Who the audit records of pins name; default `toolkit`. */
  readonly who?: string;
  /** Where pinning's own log lines go (first sights, changes); default the toolkit's logger. */
  readonly logger?: Logger;
}

/** The `_meta` key under which `warn` flags a served tool whose definition changed. */
export const PIN_META_KEY = 'io.toolplane/pin';

/** Options of {@link acceptCommand}. */
export interface AcceptCommandOptions {
  /** The reviewed definition's fingerprint: the command accepts only that one. */
  readonly fingerprint?: string;
}

/**
 * The shell command that accepts the current definition of `namespace:tool` (with
 * `fingerprint`, only while it is still the one reviewed).
 */
export function acceptCommand(
  namespace: string,
  tool?: string,
  options: AcceptCommandOptions = {},
): string {
  const target = tool === undefined ? namespace : `${namespace}:${tool}`;
  const pinned = options.fingerprint === undefined ? '' : ` --fingerprint ${options.fingerprint}`;
  return `toolplane tools accept ${target}${pinned}`;
}

// MCP tool names; anything else is left to the index, which refuses (and logs) it.
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const key = (namespace: string, tool: string): string => `${namespace}:${tool}`;

/** What {@link PinGate} needs of the toolkit. @internal */
export interface PinGateParts {
  readonly mode: Exclude<PinningMode, 'off'>;
  readonly store: PinStore;
  readonly who: string;
  readonly logger: Logger;
  /** Mirrors a namespace's tools into the index again (after a load or an acceptance). */
  readonly resync: (namespace: string) => void;
}

/**
 * Decides, synchronously, which of a server's listed tools a toolkit serves, from a cache of the
 * store's pins and changes: loaded once, kept current by the store's change feed, and written
 * through (first sights and changes go to the store in the background; {@link settled} waits for
 * them). Until the cache is loaded every upstream tool is withheld, then re-mirrored.
 *
 * @internal
 */
export class PinGate {
  readonly #parts: PinGateParts;
  readonly #pins = new Map<string, Pin>();
  readonly #changes = new Map<string, PinChange>();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #waiting = new Set<string>();
  // Tools whose pin or change this gate is writing: the store's echo of them is not news.
  readonly #writing = new Map<string, number>();
  // Changes this gate may drop from the store when its server offers the pinned definition
  // again: those it saw itself, or found at load. A change only another instance saw stays, as
  // that instance's server may still offer it.
  readonly #clearable = new Set<string>();
  readonly #unwatch: () => void;
  #loaded = false;
  #closed = false;

  constructor(parts: PinGateParts) {
    this.#parts = parts;
    this.#unwatch = parts.store.watch((event) => {
      if (this.#writing.has(key(event.namespace, event.tool))) return;
      this.#track(this.#reload(event.namespace));
    });
    this.#track(this.#load());
  }

  /** Settles once the cache is loaded and every write begun so far has landed. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** The tools of `namespace` to serve, pinning those seen for the first time. */
  filter<T extends PinnableTool>(namespace: string, tools: readonly T[]): T[] {
    if (!this.#loaded) {
      this.#waiting.add(namespace);
      return [];
    }
    const known = [...this.#pins.values()].some((pin) => pin.namespace === namespace);
    const served: T[] = [];
    for (const tool of tools) {
      if (!TOOL_NAME.test(tool.name)) {
        served.push(tool);
        continue;
      }
      let seen;
      try {
        seen = fingerprintTool(tool);
      } catch (error) {
        this.#parts.logger.warn(
          `not serving tool "${key(namespace, tool.name)}": it cannot be pinned`,
          {
            error: error instanceof Error ? error.message : String(error),
          },
        );
        continue;
      }
      const pin = this.#pins.get(key(namespace, tool.name));
      if (pin === undefined) {
        this.#pinFirst(namespace, tool.name, seen, known);
        served.push(tool);
      } else if (pin.fingerprint === seen.fingerprint) {
        this.#servedAsPinned(namespace, tool.name, pin);
        served.push(tool);
      } else {
        const change = this.#changed(namespace, tool.name, pin, seen);
        if (this.#parts.mode === 'warn') served.push(flagged(tool, change));
      }
    }
    return served;
  }

  /**
   * The refusal for a call to `namespace:tool` while it is withheld (a `tool_changed`
   * {@link ToolError} naming the change and the command that accepts it), else `undefined`.
   */
  refusal(namespace: string, tool: string): ToolError | undefined {
    if (this.#parts.mode !== 'block') return undefined;
    const id = key(namespace, tool);
    if (!this.#loaded) {
      return new ToolError(
        'tool_changed',
        `tool "${id}" is held until its pins are loaded; try again`,
        { toolId: id },
      );
    }
    const change = this.#changes.get(id);
    if (change === undefined) return undefined;
    return new ToolError(
      'tool_changed',
      `tool "${id}" changed since it was pinned (${changedFields(change).join(', ') || 'definition'}: ${change.pinned.fingerprint} → ${change.current.fingerprint}), so it is withheld; review it with \`toolplane tools changes ${namespace}\`, then accept it with \`${acceptCommand(namespace, tool)}\``,
      { toolId: id },
    );
  }

  /** Stops following the store (the store itself stays open: it was given). */
  close(): void {
    this.#closed = true;
    this.#unwatch();
  }

  #pinFirst(
    namespace: string,
    tool: string,
    seen: { fingerprint: string; definition: string },
    known: boolean,
  ): void {
    const now = Date.now();
    const pin: Pin = { namespace, tool, ...seen, pinnedAt: now };
    this.#pins.set(key(namespace, tool), pin);
    const data = { fingerprint: seen.fingerprint };
    if (known) {
      this.#parts.logger.warn(
        `new tool "${key(namespace, tool)}" of an already pinned server: pinned on first sight`,
        data,
      );
    } else {
      this.#parts.logger.info(`pinned tool "${key(namespace, tool)}" on first sight`, data);
    }
    this.#write(key(namespace, tool), async () => {
      const stored = await this.#parts.store.pinFirst(pin, {
        kind: 'pin.first',
        at: now,
        toolId: key(namespace, tool),
        who: this.#parts.who,
        fingerprint: seen.fingerprint,
        ...(known ? { detail: { newToolOfPinnedServer: true } } : {}),
      });
      // Another instance pinned it first: its pin is the one, so look again.
      if (stored.fingerprint !== pin.fingerprint) await this.#reload(namespace);
    });
  }

  #changed(
    namespace: string,
    tool: string,
    pin: Pin,
    seen: { fingerprint: string; definition: string },
  ): PinChange {
    const id = key(namespace, tool);
    const known = this.#changes.get(id);
    this.#clearable.add(id);
    if (known?.current.fingerprint === seen.fingerprint) return known;
    const change: PinChange = {
      namespace,
      tool,
      pinned: { fingerprint: pin.fingerprint, definition: pin.definition },
      current: seen,
      seenAt: Date.now(),
    };
    this.#changes.set(id, change);
    this.#parts.logger.warn(
      `tool "${id}" changed since it was pinned (${changedFields(change).join(', ')}); ${this.#parts.mode === 'block' ? 'withheld' : 'served, as pinning is "warn"'} until accepted with \`${acceptCommand(namespace, tool)}\``,
      { pinned: pin.fingerprint, current: seen.fingerprint },
    );
    this.#write(id, () =>
      this.#parts.store.recordChange(change, {
        kind: 'pin.changed',
        at: change.seenAt,
        toolId: id,
        who: this.#parts.who,
        fingerprint: seen.fingerprint,
        previous: pin.fingerprint,
        detail: { mode: this.#parts.mode, fields: changedFields(change) },
      }),
    );
    return change;
  }

  /** `namespace:tool` is offered as pinned: a change recorded for it is over. */
  #servedAsPinned(namespace: string, tool: string, pin: Pin): void {
    const id = key(namespace, tool);
    const change = this.#changes.get(id);
    if (change === undefined) return;
    this.#changes.delete(id);
    const store = this.#parts.store;
    if (!this.#clearable.delete(id) || change.pinned.fingerprint !== pin.fingerprint) return;
    if (store.clearChange === undefined) return;
    const clear = store.clearChange.bind(store);
    this.#parts.logger.info(
      `tool "${id}" is offered as pinned again; its pending change is dropped`,
      {
        pinned: pin.fingerprint,
        dropped: change.current.fingerprint,
      },
    );
    this.#write(id, () =>
      clear(change, {
        kind: 'pin.reverted',
        at: Date.now(),
        toolId: id,
        who: this.#parts.who,
        fingerprint: pin.fingerprint,
        previous: change.current.fingerprint,
        detail: { mode: this.#parts.mode },
      }),
    );
  }

  #write(id: string, work: () => Promise<unknown>): void {
    this.#writing.set(id, (this.#writing.get(id) ?? 0) + 1);
    const done = (): void => {
      const left = (this.#writing.get(id) ?? 1) - 1;
      if (left === 0) this.#writing.delete(id);
      else this.#writing.set(id, left);
    };
    this.#track(
      work()
        .catch((error: unknown) => {
          this.#parts.logger.error('cannot write a tool pin to the store', {
            error: error instanceof Error ? error.message : String(error),
          });
        })
        .finally(done),
    );
  }

  #track(work: Promise<unknown>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  async #load(): Promise<void> {
    try {
      const [pins, changes] = await Promise.all([
        this.#parts.store.listPins(),
        this.#parts.store.listChanges(),
      ]);
      for (const pin of pins) this.#pins.set(key(pin.namespace, pin.tool), pin);
      for (const change of changes) {
        this.#changes.set(key(change.namespace, change.tool), change);
        this.#clearable.add(key(change.namespace, change.tool));
      }
    } catch (error) {
      this.#parts.logger.error('cannot load tool pins; serving no upstream tools until they load', {
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    this.#loaded = true;
    for (const namespace of this.#waiting) this.#parts.resync(namespace);
    this.#waiting.clear();
  }

  /** Reads one namespace's pins and changes again (another writer changed them), then re-mirrors. */
  async #reload(namespace: string): Promise<void> {
    if (!this.#loaded || this.#closed) return;
    const [pins, changes] = await Promise.all([
      this.#parts.store.listPins(namespace),
      this.#parts.store.listChanges(namespace),
    ]);
    // Merged, not replaced: pins are never removed, and a pin or change still being written by
    // this gate is not in the store yet. A change whose tool is now pinned as it is was accepted.
    for (const pin of pins) this.#pins.set(key(pin.namespace, pin.tool), pin);
    const stored = new Set<string>();
    for (const change of changes) {
      const k = key(change.namespace, change.tool);
      stored.add(k);
      // Another writer's change, not the one this gate saw: not this gate's to drop.
      if (this.#changes.get(k)?.current.fingerprint !== change.current.fingerprint) {
        this.#clearable.delete(k);
      }
      this.#changes.set(k, change);
    }
    for (const [k, change] of this.#changes) {
      const accepted = this.#pins.get(k)?.fingerprint === change.current.fingerprint;
      // Gone from the store although this gate's server offers it: another instance, whose
      // server offers the pinned definition, dropped it. Forgotten here, the re-mirror below
      // records it again, and that instance leaves it be (it did not see it).
      const dropped =
        change.namespace === namespace &&
        !stored.has(k) &&
        this.#clearable.has(k) &&
        !this.#writing.has(k);
      if (accepted || dropped) {
        this.#changes.delete(k);
        this.#clearable.delete(k);
      }
    }
    this.#parts.resync(namespace);
  }
}

/** `tool` with its change told in `_meta`, as `warn` serves it. */
function flagged<T extends PinnableTool>(tool: T, change: PinChange): T {
  const meta = (tool as { _meta?: Record<string, unknown> })._meta;
  return {
    ...tool,
    _meta: {
      ...meta,
      [PIN_META_KEY]: {
        status: 'changed',
        pinned: change.pinned.fingerprint,
        current: change.current.fingerprint,
        accept: acceptCommand(change.namespace, change.tool),
      },
    },
  };
}
