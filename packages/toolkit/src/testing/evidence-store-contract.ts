import type { EvidenceForget, EvidenceStore, UsageEvidence } from '@toolplane/toolindex';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** How {@link describeEvidenceStoreContract} gets stores to test. */
export interface EvidenceStoreContractOptions {
  /**
   * Creates a fresh, empty store; each test gets its own. A store with a `close` method is
   * closed when its test ends.
   */
  readonly create: () => EvidenceStore | Promise<EvidenceStore>;
  /**
   * Opens another store on the same data as the last one `create` returned (the same file or
   * schema), for the two-instance tests; leave it out for a store that cannot share.
   */
  readonly reopen?: () => EvidenceStore | Promise<EvidenceStore>;
}

const HALF_LIFE = 1_000;

const row = (toolId: string, term: string, weight: number, updatedAt: number): UsageEvidence => ({
  toolId,
  term,
  weight,
  updatedAt,
});

/** Rows in one order, weights to 9 places: stores may sum in floating point their own way. */
const sorted = (rows: readonly UsageEvidence[]): UsageEvidence[] =>
  [...rows]
    .map((each) => ({ ...each, weight: Math.round(each.weight * 1e9) / 1e9 }))
    .sort((a, b) =>
      a.toolId === b.toolId
        ? a.term < b.term
          ? -1
          : a.term > b.term
            ? 1
            : 0
        : a.toolId < b.toolId
          ? -1
          : 1,
    );

/** `store.add`, or the test skipped: the interface makes it optional. */
function addOf(
  store: EvidenceStore,
  skip: (note: string) => void,
): NonNullable<EvidenceStore['add']> {
  if (store.add === undefined) skip('the store has no add');
  return (store.add as NonNullable<EvidenceStore['add']>).bind(store);
}

/**
 * The rows a bounded `add` answers with, or the test skipped: a store that answers nothing
 * applies no bound (the interface allows it; a learning searcher then removes what it evicts).
 */
function keptOf(answer: unknown, skip: (note: string) => void): UsageEvidence[] {
  if (!Array.isArray(answer)) skip('the store applies no bound in add');
  return sorted(answer as UsageEvidence[]);
}

/** What one `onForget` listener hears, and a wait for its `count`th forget. */
interface Heard {
  readonly toolIds: (string | undefined)[];
  /** Resolves with every tool heard once `count` forgets are, or rejects after `ms`. */
  until(count: number, ms?: number): Promise<(string | undefined)[]>;
  readonly off: () => void;
}

/** Subscribes to `store`'s forgets, or skips the test: the interface makes `onForget` optional. */
function listen(
  store: EvidenceStore,
  skip: (note: string) => void,
  listener: (forget: EvidenceForget) => void = () => undefined,
): Heard {
  if (store.onForget === undefined) skip('the store has no onForget');
  const toolIds: (string | undefined)[] = [];
  const waiting = new Set<() => void>();
  const off = (store.onForget as NonNullable<EvidenceStore['onForget']>)((forget) => {
    toolIds.push(forget.toolId);
    for (const check of [...waiting]) check();
    listener(forget);
  });
  return {
    toolIds,
    off,
    until: (count, ms = 10_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(
            new Error(
              `heard ${String(toolIds.length)} of ${String(count)} forgets in ${String(ms)} ms`,
            ),
          );
        }, ms);
        const check = (): void => {
          if (toolIds.length < count) return;
          clearTimeout(timer);
          waiting.delete(check);
          resolve([...toolIds]);
        };
        waiting.add(check);
        check();
      }),
  };
}

/**
 * Registers the shared test suite every {@link EvidenceStore} must pass: saved rows load back, a
 * newer row replacing its own and leaving the rest; `remove`; `add` summing weights decayed to
 * the later time, inserting new rows, and with `maxTermsPerTool` keeping each tool's heaviest
 * rows and answering with them; a bad `halfLifeMs` or `maxTermsPerTool`, or a malformed row,
 * refused with nothing changed; a cancelled load; forgets of a tool and of everything, told to every listener (one
 * that throws stops none of the others); and (with `reopen`) two instances on the same data both
 * counting a term learned at once, bounding each other's rows, and hearing each other's forgets.
 * The optional `add` and `onForget` are tested when the store has them, else their tests skip.
 *
 * @example
 * ```ts
 * describeEvidenceStoreContract('my evidence store', { create: () => createMyEvidenceStore() });
 * ```
 */
export function describeEvidenceStoreContract(
  name: string,
  options: EvidenceStoreContractOptions,
): void {
  describe(`${name} (EvidenceStore contract)`, () => {
    const open: EvidenceStore[] = [];
    const create = async (): Promise<EvidenceStore> => {
      const store = await options.create();
      open.push(store);
      return store;
    };
    const reopen = async (): Promise<EvidenceStore> => {
      if (options.reopen === undefined) throw new Error('no reopen');
      const store = await options.reopen();
      open.push(store);
      return store;
    };
    // A throwing listener is reported (on stderr by toolindex's listeners): expected, and quiet.
    const quiet: (() => void)[] = [];
    const quietErrors = (): void => {
      const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      quiet.push(() => {
        spy.mockRestore();
      });
    };
    afterEach(async () => {
      for (const restore of quiet.splice(0)) restore();
      await Promise.all(
        open.splice(0).map((store) => (store as { close?: () => unknown }).close?.()),
      );
    });

    it('loads what it saved, a newer row replacing its own and the rest left as they are', async () => {
      const store = await create();
      expect(await store.load()).toEqual([]);
      await store.save([]);
      await store.save([
        row('a:x', 'one', 1, 10),
        row('a:x', 'two', 1, 10),
        row('b:y', 'one', 3, 10),
        row('a:x', '= purchas undo', 2, 10),
      ]);
      // A row twice in one save: the newer is kept.
      await store.save([row('a:x', 'one', 4, 15), row('a:x', 'one', 5, 20)]);
      // An older row saved late (an instance that saw less) does not undo the newer one.
      await store.save([row('a:x', 'one', 9, 12)]);
      expect(sorted(await store.load())).toEqual([
        row('a:x', '= purchas undo', 2, 10),
        row('a:x', 'one', 5, 20),
        row('a:x', 'two', 1, 10),
        row('b:y', 'one', 3, 10),
      ]);
    });

    it('keeps a time with a fraction of a millisecond, to the millisecond at least', async () => {
      const store = await create();
      const given = [row('a:x', 'one', 1, 1_000.4), row('a:x', 'two', 1, 2_000.6)];
      await store.save(given.slice(0, 1));
      if (store.add === undefined) await store.save(given.slice(1));
      else await store.add(given.slice(1), { halfLifeMs: HALF_LIFE });
      const loaded = sorted(await store.load());
      expect(loaded.map((each) => each.weight)).toEqual([1, 1]);
      loaded.forEach((each, i) => {
        expect(Math.abs(each.updatedAt - (given[i]?.updatedAt ?? 0))).toBeLessThanOrEqual(0.5);
      });
    });

    it('removes the rows named and nothing else', async () => {
      const store = await create();
      await store.save([
        row('a:x', 'one', 1, 10),
        row('a:x', 'two', 1, 10),
        row('b:y', 'one', 1, 10),
      ]);
      await store.remove([]);
      await store.remove([
        { toolId: 'a:x', term: 'one' },
        { toolId: 'a:x', term: 'missing' },
        { toolId: 'c:z', term: 'one' },
      ]);
      expect(sorted(await store.load())).toEqual([
        row('a:x', 'two', 1, 10),
        row('b:y', 'one', 1, 10),
      ]);
    });

    it('rejects a load whose signal is aborted', async () => {
      const store = await create();
      await expect(store.load({ signal: AbortSignal.abort() })).rejects.toMatchObject({
        code: 'cancelled',
      });
    });

    it('adds weights decayed to the later time, and inserts the rows not kept', async ({
      skip,
    }) => {
      const store = await create();
      const add = addOf(store, skip);
      await store.save([row('a:x', 'undo', 4, 0), row('b:y', 'undo', 4, 0)]);
      // 4 halved once by 1,000, plus 1; a row seen twice in one add counts twice.
      await add([row('a:x', 'undo', 1, 1_000), row('a:x', 'new', 1, 1_000)], {
        halfLifeMs: HALF_LIFE,
      });
      await add([row('a:x', 'twice', 1, 1_000), row('a:x', 'twice', 1, 1_000)], {
        halfLifeMs: HALF_LIFE,
      });
      // An added row older than the one kept is decayed to the kept one's time.
      await add([row('a:x', 'late', 1, 2_000)], { halfLifeMs: HALF_LIFE });
      await add([row('a:x', 'late', 4, 0)], { halfLifeMs: HALF_LIFE });
      expect(sorted(await store.load())).toEqual([
        row('a:x', 'late', 2, 2_000),
        row('a:x', 'new', 1, 1_000),
        row('a:x', 'twice', 2, 1_000),
        row('a:x', 'undo', 3, 1_000),
        row('b:y', 'undo', 4, 0),
      ]);
    });

    it('bounds each tool it adds to, to its heaviest rows decayed to one time, and answers with them', async ({
      skip,
    }) => {
      const store = await create();
      const add = addOf(store, skip);
      await store.save([
        row('a:x', 'old', 8, 0),
        row('a:x', 'mid', 2, 9_000),
        row('b:y', 'one', 1, 0),
        row('c:z', 'alone', 1, 0),
      ]);
      // At 10,000 `old` weighs 8/1024 and `mid` 1, as much as `new`; c:z is not added to.
      const kept = await add([row('a:x', 'new', 1, 10_000), row('b:y', 'two', 1, 0)], {
        halfLifeMs: HALF_LIFE,
        maxTermsPerTool: 2,
      });
      expect(keptOf(kept, skip)).toEqual([
        row('a:x', 'mid', 2, 9_000),
        row('a:x', 'new', 1, 10_000),
        row('b:y', 'one', 1, 0),
        row('b:y', 'two', 1, 0),
      ]);
      // Three rows as heavy, at one time: the lowest term is kept (a fraction rounded down).
      const fewer = await add([row('b:y', 'three', 1, 0)], {
        halfLifeMs: HALF_LIFE,
        maxTermsPerTool: 1.9,
      });
      expect(keptOf(fewer, skip)).toEqual([row('b:y', 'one', 1, 0)]);
      expect(sorted(await store.load())).toEqual([
        row('a:x', 'mid', 2, 9_000),
        row('a:x', 'new', 1, 10_000),
        row('b:y', 'one', 1, 0),
        row('c:z', 'alone', 1, 0),
      ]);
    });

    it('refuses a bad halfLifeMs or maxTermsPerTool and changes nothing', async ({ skip }) => {
      const store = await create();
      const add = addOf(store, skip);
      const before = [row('a:x', 'one', 1, 0), row('a:x', 'two', 2, 0)];
      await store.save(before);
      const added = [row('a:x', 'one', 1, 10), row('a:x', 'three', 1, 10)];
      for (const halfLifeMs of [0, -1, Number.NaN, Infinity, 1e14, '5' as unknown as number]) {
        await expect(add(added, { halfLifeMs })).rejects.toMatchObject({
          code: 'invalid_argument',
        });
        await expect(add(added, { halfLifeMs, maxTermsPerTool: 1 })).rejects.toMatchObject({
          code: 'invalid_argument',
        });
      }
      for (const maxTermsPerTool of [0, 1001, -1, Number.NaN, '2' as unknown as number]) {
        await expect(add(added, { halfLifeMs: HALF_LIFE, maxTermsPerTool })).rejects.toMatchObject({
          code: 'invalid_argument',
        });
      }
      expect(sorted(await store.load())).toEqual(before);
    });

    it('refuses a malformed row to save, add or remove with invalid_argument, and changes nothing', async () => {
      const store = await create();
      const before = [row('a:x', 'one', 1, 0), row('a:x', 'two', 2, 0)];
      await store.save(before);
      const good = row('a:x', 'one', 5, 10);
      const malformed: unknown[] = [
        { ...good, weight: Number.NaN },
        { ...good, weight: Infinity },
        { ...good, weight: -1 },
        { ...good, weight: '5' },
        { ...good, updatedAt: Number.NaN },
        { ...good, updatedAt: -1 },
        { ...good, updatedAt: 1e300 },
        { ...good, updatedAt: undefined },
        { ...good, toolId: '' },
        { ...good, toolId: 42 },
        { ...good, term: '' },
        { ...good, term: null },
        { ...good, term: 'nul\u0000' },
        { ...good, toolId: 'a:\uD800' },
        null,
        'a:x',
      ];
      for (const bad of malformed) {
        // The bad row after a good one: nothing of the call is kept, not even the good row.
        const rows = [good, bad] as UsageEvidence[];
        await expect(store.save(rows)).rejects.toMatchObject({ code: 'invalid_argument' });
        if (store.add !== undefined) {
          await expect(store.add(rows, { halfLifeMs: HALF_LIFE })).rejects.toMatchObject({
            code: 'invalid_argument',
          });
        }
      }
      for (const bad of [{ toolId: 'a:x', term: '' }, { toolId: 7, term: 'one' }, null]) {
        await expect(
          store.remove([{ toolId: 'a:x', term: 'one' }, bad] as UsageEvidence[]),
        ).rejects.toMatchObject({ code: 'invalid_argument' });
      }
      await expect(store.save('rows' as unknown as UsageEvidence[])).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      expect(sorted(await store.load())).toEqual(before);
    });

    it('forgets a tool, then everything, telling its listeners of each', async ({ skip }) => {
      const store = await create();
      const heard = listen(store, skip);
      await store.save([row('a:x', 'one', 1, 0), row('a:x', 'two', 1, 0), row('b:y', 'one', 1, 0)]);
      await store.forget('a:x');
      expect(sorted(await store.load())).toEqual([row('b:y', 'one', 1, 0)]);
      expect(await heard.until(1)).toEqual(['a:x']);
      await store.forget();
      expect(await store.load()).toEqual([]);
      expect(await heard.until(2)).toEqual(['a:x', undefined]);
      // What is learned after a forget starts from nothing.
      await store.save([row('a:x', 'one', 1, 5)]);
      expect(await store.load()).toEqual([row('a:x', 'one', 1, 5)]);
    });

    it('stops telling a listener once unsubscribed, and tells the others though one throws', async ({
      skip,
    }) => {
      const store = await create();
      const gone = listen(store, skip);
      gone.off();
      gone.off();
      quietErrors();
      listen(store, skip, () => {
        throw new Error('a listener that throws');
      });
      const heard = listen(store, skip);
      await store.save([row('a:x', 'one', 1, 0)]);
      await expect(store.forget('a:x')).resolves.toBeUndefined();
      expect(await heard.until(1)).toEqual(['a:x']);
      expect(await store.load()).toEqual([]);
      await store.forget();
      expect(await heard.until(2)).toEqual(['a:x', undefined]);
      expect(gone.toolIds).toEqual([]);
    });

    it.runIf(options.reopen !== undefined)(
      'counts a term two instances learn at once, each bounding the rows of both',
      async ({ skip }) => {
        const one = await create();
        const two = await reopen();
        const addOne = addOf(one, skip);
        const addTwo = addOf(two, skip);
        const learned = row('a:x', 'undo', 1, 1_000);
        await Promise.all([
          addOne([learned], { halfLifeMs: HALF_LIFE }),
          addTwo([learned], { halfLifeMs: HALF_LIFE }),
          addOne([learned], { halfLifeMs: HALF_LIFE, maxTermsPerTool: 5 }),
          addTwo([learned], { halfLifeMs: HALF_LIFE, maxTermsPerTool: 5 }),
        ]);
        expect(sorted(await two.load())).toEqual([row('a:x', 'undo', 4, 1_000)]);
        // The bound is applied to every instance's rows, and answered with them.
        await one.save([row('a:x', 'light', 1, 1_000), row('a:x', 'heavy', 9, 1_000)]);
        const kept = await addTwo([row('a:x', 'new', 2, 1_000)], {
          halfLifeMs: HALF_LIFE,
          maxTermsPerTool: 2,
        });
        expect(keptOf(kept, skip)).toEqual([
          row('a:x', 'heavy', 9, 1_000),
          row('a:x', 'undo', 4, 1_000),
        ]);
        expect(sorted(await one.load())).toEqual(keptOf(kept, skip));
      },
    );

    it.runIf(options.reopen !== undefined)(
      'shares its rows with another instance, which hears its forgets (and each its own once)',
      async ({ skip }) => {
        const one = await create();
        const two = await reopen();
        // Told first, it keeps none of the others from hearing the other instance's forgets.
        quietErrors();
        listen(one, skip, () => {
          throw new Error('a listener that throws');
        });
        const heardByOne = listen(one, skip);
        const heardByTwo = listen(two, skip);
        await one.save([row('a:x', 'one', 1, 0), row('b:y', 'one', 1, 0)]);
        expect(sorted(await two.load())).toEqual([
          row('a:x', 'one', 1, 0),
          row('b:y', 'one', 1, 0),
        ]);

        await two.forget('a:x');
        expect(sorted(await one.load())).toEqual([row('b:y', 'one', 1, 0)]);
        expect(await heardByOne.until(1)).toEqual(['a:x']);
        // What the other instance adds next counts from nothing: the forgotten weight is gone.
        await addOf(one, skip)([row('a:x', 'one', 1, 0)], { halfLifeMs: HALF_LIFE });
        expect(sorted(await two.load())).toEqual([
          row('a:x', 'one', 1, 0),
          row('b:y', 'one', 1, 0),
        ]);
        await one.forget();
        expect(await two.load()).toEqual([]);
        expect(await heardByTwo.until(2)).toEqual(['a:x', undefined]);
        // Its own forget told once: heard before the other's next one, and not again.
        await two.forget('c:z');
        expect(await heardByOne.until(3)).toEqual(['a:x', undefined, 'c:z']);
      },
    );
  });
}
