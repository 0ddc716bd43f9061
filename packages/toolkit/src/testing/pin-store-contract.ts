import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintTool } from '../pinning/fingerprint.js';
import type { AuditRecord, Pin, PinChange, PinEvent, PinStore } from '../pinning/pin-types.js';

/** How {@link describePinStoreContract} gets stores to test. */
export interface PinStoreContractOptions {
  /** Creates a fresh, empty store; each test gets its own. */
  readonly create: () => PinStore | Promise<PinStore>;
  /**
   * Opens another store on the same data as the last one `create` returned (the same file or
   * schema), for the two-instance tests; leave it out for a store that cannot share.
   */
  readonly reopen?: () => PinStore | Promise<PinStore>;
}

const pinOf = (namespace: string, tool: string, description: string): Pin => ({
  namespace,
  tool,
  ...fingerprintTool({ name: tool, description }),
  pinnedAt: 1_000,
});

const first = (pin: Pin): AuditRecord => ({
  kind: 'pin.first',
  at: pin.pinnedAt,
  toolId: `${pin.namespace}:${pin.tool}`,
  who: 'contract',
  fingerprint: pin.fingerprint,
});

const changeOf = (pin: Pin, description: string): PinChange => ({
  namespace: pin.namespace,
  tool: pin.tool,
  pinned: { fingerprint: pin.fingerprint, definition: pin.definition },
  current: fingerprintTool({ name: pin.tool, description }),
  seenAt: 2_000,
});

const changed = (change: PinChange): AuditRecord => ({
  kind: 'pin.changed',
  at: change.seenAt,
  toolId: `${change.namespace}:${change.tool}`,
  fingerprint: change.current.fingerprint,
  previous: change.pinned.fingerprint,
  detail: { mode: 'block' },
});

const reverted = (change: PinChange): AuditRecord => ({
  kind: 'pin.reverted',
  at: 3_000,
  toolId: `${change.namespace}:${change.tool}`,
  who: 'contract',
  fingerprint: change.pinned.fingerprint,
  previous: change.current.fingerprint,
});

/** `store.clearChange`, which every store this suite passes has. */
function clearOf(store: PinStore): NonNullable<PinStore['clearChange']> {
  if (store.clearChange === undefined) {
    throw new Error('the store has no clearChange: a reverted change would stay pending');
  }
  return store.clearChange.bind(store);
}

/** Resolves with the first event `store` hears for `tool`, or rejects after `ms`. */
function heard(store: PinStore, tool: string, ms = 10_000): Promise<PinEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no pin event for ${tool} within ${String(ms)} ms`));
    }, ms);
    const off = store.watch((event) => {
      if (event.tool !== tool) return;
      clearTimeout(timer);
      off();
      resolve(event);
    });
  });
}

/**
 * Registers the shared test suite every {@link PinStore} must pass: first pins win, a change is
 * recorded once and accepted whole (and, given the reviewed fingerprint, only while it is the
 * one offered), a reverted change is dropped only while it is the one recorded, a refused write
 * stores nothing, the audit log's order and bounds, hostile
 * definitions, cancellation, and (with `reopen`) a second instance's writes heard through the
 * change feed.
 *
 * @example
 * ```ts
 * describePinStoreContract('my pin store', { create: () => createMyPinStore() });
 * ```
 */
export function describePinStoreContract(name: string, options: PinStoreContractOptions): void {
  describe(`${name} (PinStore contract)`, () => {
    const open: PinStore[] = [];
    const create = async (): Promise<PinStore> => {
      const store = await options.create();
      open.push(store);
      return store;
    };
    const reopen = async (): Promise<PinStore> => {
      if (options.reopen === undefined) throw new Error('no reopen');
      const store = await options.reopen();
      open.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((store) => store.close()));
    });

    it('keeps the first pin of a tool and lists pins by namespace', async () => {
      const store = await create();
      const pin = pinOf('gh', 'issue', 'Opens an issue.');
      expect(await store.pinFirst(pin, first(pin))).toEqual(pin);
      const other = pinOf('gh', 'issue', 'Something else.');
      expect(await store.pinFirst(other, first(other))).toEqual(pin);
      const mail = pinOf('mail', 'send', 'Sends mail.');
      await store.pinFirst(mail, first(mail));
      expect(await store.listPins('gh')).toEqual([pin]);
      expect(await store.listPins()).toHaveLength(2);
      expect((await store.listAudit()).map((r) => r.kind)).toEqual(['pin.first', 'pin.first']);
    });

    it('records a change once and accepts it whole, with an audit record each', async () => {
      const store = await create();
      const pin = pinOf('gh', 'issue', 'Opens an issue.');
      await store.pinFirst(pin, first(pin));
      const change = changeOf(pin, 'Opens an issue. Also mails your keys away.');
      expect(await store.recordChange(change, changed(change))).toBe(true);
      expect(await store.recordChange(change, changed(change))).toBe(false);
      expect(await store.listChanges('gh')).toEqual([change]);
      expect(await store.listChanges('mail')).toEqual([]);

      expect(await store.accept({ namespace: 'gh', tool: 'other' }, 'alice')).toEqual([]);
      expect(await store.accept({ namespace: 'gh' }, 'alice')).toEqual([change]);
      expect(await store.listChanges()).toEqual([]);
      const [now] = await store.listPins('gh');
      expect(now?.fingerprint).toBe(change.current.fingerprint);
      expect(now?.definition).toBe(change.current.definition);
      const audit = await store.listAudit();
      expect(audit.map((r) => r.kind)).toEqual(['pin.first', 'pin.changed', 'pin.accepted']);
      expect(audit[1]).toMatchObject({ detail: { mode: 'block' }, previous: pin.fingerprint });
      expect(audit[2]).toMatchObject({
        who: 'alice',
        toolId: 'gh:issue',
        fingerprint: change.current.fingerprint,
        previous: pin.fingerprint,
      });
      expect(audit[2]?.seq ?? 0).toBeGreaterThan(audit[1]?.seq ?? 0);
    });

    it('accepts a change only while it offers the reviewed definition, when given its fingerprint', async () => {
      const store = await create();
      const pin = pinOf('gh', 'issue', 'Opens an issue.');
      await store.pinFirst(pin, first(pin));
      const reviewed = changeOf(pin, 'Opens an issue, v4.');
      await store.recordChange(reviewed, changed(reviewed));
      // The server changes again between the review and the acceptance.
      const unseen = changeOf(pin, 'Opens an issue, v5. Also mails your keys away.');
      await store.recordChange(unseen, changed(unseen));
      const asReviewed = {
        namespace: 'gh',
        tool: 'issue',
        fingerprint: reviewed.current.fingerprint,
      };
      await expect(store.accept(asReviewed, 'alice')).rejects.toMatchObject({ code: 'conflict' });
      for (const bad of [
        { namespace: 'gh', tool: 'issue', fingerprint: 'sha256:not-hex' },
        { namespace: 'gh', fingerprint: unseen.current.fingerprint },
      ]) {
        await expect(store.accept(bad, 'alice')).rejects.toMatchObject({
          code: 'invalid_argument',
        });
      }
      // Nothing was accepted.
      expect(await store.listChanges()).toEqual([unseen]);
      expect(await store.listPins('gh')).toEqual([pin]);
      expect((await store.listAudit()).map((r) => r.kind)).toEqual([
        'pin.first',
        'pin.changed',
        'pin.changed',
      ]);

      const asSeen = { namespace: 'gh', tool: 'issue', fingerprint: unseen.current.fingerprint };
      expect(await store.accept(asSeen, 'alice')).toEqual([unseen]);
      expect((await store.listPins('gh'))[0]?.fingerprint).toBe(unseen.current.fingerprint);
    });

    it('drops a reverted change only while it is the one recorded, with an audit record', async () => {
      const store = await create();
      const clear = clearOf(store);
      const pin = pinOf('gh', 'issue', 'Opens an issue.');
      await store.pinFirst(pin, first(pin));
      const change = changeOf(pin, 'Opens an issue. Also mails your keys away.');
      await store.recordChange(change, changed(change));
      // Another definition than the one recorded, or against another pin: left as it is.
      const other = changeOf(pin, 'Something else again.');
      expect(await clear(other, reverted(other))).toBe(false);
      const otherPin = { ...change, pinned: fingerprintTool({ name: 'issue', description: 'x' }) };
      expect(await clear(otherPin, reverted(otherPin))).toBe(false);
      expect(await store.listChanges('gh')).toEqual([change]);

      expect(await clear(change, reverted(change))).toBe(true);
      expect(await clear(change, reverted(change))).toBe(false);
      expect(await store.listChanges()).toEqual([]);
      // Nothing stale is left to accept, and the pin is the one served.
      expect(await store.accept({ namespace: 'gh', tool: 'issue' }, 'alice')).toEqual([]);
      expect(await store.listPins('gh')).toEqual([pin]);
      const audit = await store.listAudit();
      expect(audit.map((r) => r.kind)).toEqual(['pin.first', 'pin.changed', 'pin.reverted']);
      expect(audit[2]).toMatchObject({
        toolId: 'gh:issue',
        who: 'contract',
        fingerprint: pin.fingerprint,
        previous: change.current.fingerprint,
      });

      // A bad audit record drops nothing.
      await store.recordChange(change, changed(change));
      const bad = { ...reverted(change), at: -1 };
      await expect(clear(change, bad)).rejects.toMatchObject({ code: 'invalid_argument' });
      expect(await store.listChanges()).toEqual([change]);
    });

    it('stores nothing of a write whose audit record is refused', async () => {
      const store = await create();
      const pin = pinOf('gh', 'issue', 'Opens an issue.');
      const bad = { ...first(pin), kind: 'pin.bogus' } as unknown as AuditRecord;
      await expect(store.pinFirst(pin, bad)).rejects.toMatchObject({ code: 'invalid_argument' });
      expect(await store.listPins()).toEqual([]);
      await store.pinFirst(pin, first(pin));
      const change = changeOf(pin, 'Changed.');
      const huge = { ...changed(change), detail: { blob: 'x'.repeat(100_000) } };
      await expect(store.recordChange(change, huge)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      expect(await store.listChanges()).toEqual([]);
      expect(await store.listAudit()).toHaveLength(1);
    });

    it('lists the audit log oldest first, bounded by since and limit', async () => {
      const store = await create();
      for (let at = 1; at <= 5; at++) {
        await store.appendAudit({
          kind: at % 2 === 0 ? 'approval.granted' : 'approval.asked',
          at: at * 1_000,
          toolId: 'mail:send',
          who: `session-${String(at)}`,
          detail: { argumentsDigest: `d${String(at)}` },
        });
      }
      expect((await store.listAudit()).map((r) => r.at)).toEqual([1e3, 2e3, 3e3, 4e3, 5e3]);
      expect((await store.listAudit({ since: 3_000 })).map((r) => r.at)).toEqual([3e3, 4e3, 5e3]);
      expect((await store.listAudit({ limit: 2 })).map((r) => r.at)).toEqual([4e3, 5e3]);
      expect((await store.listAudit({ limit: 1 }))[0]).toMatchObject({
        kind: 'approval.asked',
        who: 'session-5',
        detail: { argumentsDigest: 'd5' },
      });
      await expect(store.listAudit({ limit: 10_001 })).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      await expect(store.listAudit({ signal: AbortSignal.abort() })).rejects.toMatchObject({
        code: 'cancelled',
      });
    });

    it('keeps a hostile definition (1 MB, control characters, NUL) exactly', async () => {
      const store = await create();
      const description = `\u0000\u001b[2J\r${'y'.repeat(1_000_000)}\u202e`;
      const pin = pinOf('evil', 'tool', description);
      await store.pinFirst(pin, first(pin));
      const [stored] = await store.listPins('evil');
      expect(stored?.definition).toBe(pin.definition);
      expect(
        fingerprintTool(JSON.parse(stored?.definition ?? '{}') as { name: string }).fingerprint,
      ).toBe(pin.fingerprint);
    });

    it('tells its watchers of its own writes', async () => {
      const store = await create();
      const pin = pinOf('gh', 'issue', 'Opens an issue.');
      const event = heard(store, 'issue');
      await store.pinFirst(pin, first(pin));
      expect(await event).toMatchObject({ namespace: 'gh', tool: 'issue' });
    });

    it.runIf(options.reopen !== undefined)(
      "hears another instance's acceptance through its change feed",
      async () => {
        const gateway = await create();
        const cli = await reopen();
        const pin = pinOf('gh', 'issue', 'Opens an issue.');
        await gateway.pinFirst(pin, first(pin));
        const change = changeOf(pin, 'Changed.');
        await gateway.recordChange(change, changed(change));
        const event = heard(gateway, 'issue');
        expect(await cli.accept({ namespace: 'gh', tool: 'issue' }, 'bob')).toHaveLength(1);
        expect(await event).toMatchObject({ namespace: 'gh', tool: 'issue' });
        expect((await gateway.listPins('gh'))[0]?.fingerprint).toBe(change.current.fingerprint);
      },
    );

    it.runIf(options.reopen !== undefined)(
      "hears another instance's dropping of a reverted change through its change feed",
      async () => {
        const gateway = await create();
        const other = await reopen();
        const pin = pinOf('gh', 'issue', 'Opens an issue.');
        await gateway.pinFirst(pin, first(pin));
        const change = changeOf(pin, 'Changed.');
        await gateway.recordChange(change, changed(change));
        const event = heard(gateway, 'issue');
        expect(await clearOf(other)(change, reverted(change))).toBe(true);
        expect(await event).toMatchObject({ namespace: 'gh', tool: 'issue' });
        expect(await gateway.listChanges()).toEqual([]);
      },
    );
  });
}
