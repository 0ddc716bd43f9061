import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Prompt } from '../prompts/prompts.js';
import type { Resource } from '../resources/resources.js';
import type { Store, StoreChange } from '../store.js';

/** How {@link describeStoreContract} gets stores to test. */
export interface StoreContractOptions {
  /** Creates a fresh, empty store; each test gets its own. */
  readonly create: () => Store | Promise<Store>;
  /**
   * Opens another store on the same data as the last one `create` returned (e.g. the same file),
   * for the persistence and two-instance tests; leave it out for a store that cannot share.
   */
  readonly reopen?: () => Store | Promise<Store>;
}

const prompt = (name: string, template = `Hello {{ who }} from ${name}`): Prompt => ({
  name,
  description: `The ${name} prompt`,
  input: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
  tools: ['builtin:search'],
  maxTokens: 512,
  template,
});

const text = (name: string, body = `notes about ${name}`): Resource => ({
  uri: `notes://${name}`,
  name,
  mimeType: 'text/markdown',
  text: body,
});

const blob = (name: string, bytes: number[]): Resource => ({
  uri: `files://bin/${name}`,
  name,
  mimeType: 'application/octet-stream',
  blob: Buffer.from(bytes).toString('base64'),
});

/**
 * Registers the shared test suite every {@link Store} must pass: CRUD for prompts and resources,
 * ordering, copies, validation, change events, cancellation, closing, a seeded random operation
 * sequence against a model, and (with `reopen`) persistence and two instances on one data set.
 *
 * @example
 * ```ts
 * describeStoreContract('my store', { create: () => createMyStore() });
 * ```
 */
export function describeStoreContract(name: string, options: StoreContractOptions): void {
  describe(`${name} (Store contract)`, () => {
    let store: Store;
    const extra: Store[] = [];

    beforeEach(async () => {
      store = await options.create();
    });
    afterEach(async () => {
      for (const other of extra.splice(0)) await other.close();
      await store.close();
    });

    describe('prompts', () => {
      it('returns nothing when the store is empty', async () => {
        expect(await store.listPrompts()).toEqual([]);
        expect(await store.getPrompt('missing')).toBeUndefined();
      });

      it('returns a prompt in the very next get and list after put resolves', async () => {
        const stored = await store.putPrompt(prompt('greet'));
        expect(stored).toEqual(prompt('greet'));
        expect(await store.getPrompt('greet')).toEqual(prompt('greet'));
        expect(await store.listPrompts()).toEqual([prompt('greet')]);
      });

      it('lists prompts ordered by name whatever the insertion order', async () => {
        for (const n of ['b', 'A', 'a', 'a.b', 'a-b', '_', 'Z9']) await store.putPrompt(prompt(n));
        const names = (await store.listPrompts()).map((p) => p.name);
        expect(names).toEqual(['A', 'Z9', '_', 'a', 'a-b', 'a.b', 'b']);
      });

      it('replaces a prompt when one of the same name is put', async () => {
        await store.putPrompt(prompt('greet', 'v1'));
        await store.putPrompt(prompt('greet', 'v2'));
        expect((await store.getPrompt('greet'))?.template).toBe('v2');
        expect(await store.listPrompts()).toHaveLength(1);
      });

      it('returns true for a deleted prompt and false when there was none', async () => {
        await store.putPrompt(prompt('greet'));
        expect(await store.deletePrompt('greet')).toBe(true);
        expect(await store.getPrompt('greet')).toBeUndefined();
        expect(await store.deletePrompt('greet')).toBe(false);
      });

      it('returns copies, so changing a result leaves the store unchanged', async () => {
        const stored = await store.putPrompt(prompt('greet'));
        (stored.tools as string[]).push('x:y');
        const got = await store.getPrompt('greet');
        (got?.tools as string[] | undefined)?.push('x:z');
        expect(await store.getPrompt('greet')).toEqual(prompt('greet'));
      });

      it('rejects a malformed prompt with invalid_prompt and stores nothing', async () => {
        const bad = [
          { ...prompt('ok'), name: 'has space' },
          { ...prompt('ok'), name: '__proto__' },
          { ...prompt('ok'), template: '{% if %}' },
          { ...prompt('ok'), maxTokens: -1 },
          { name: 'ok' },
        ];
        for (const value of bad) {
          expect(await rejectionCodeOf(store.putPrompt(value as Prompt))).toBe('invalid_prompt');
        }
        expect(await store.listPrompts()).toEqual([]);
      });

      it('returns undefined for names no prompt can have', async () => {
        expect(await store.getPrompt('__proto__')).toBeUndefined();
        expect(await store.getPrompt('constructor')).toBeUndefined();
        expect(await store.deletePrompt('toString')).toBe(false);
      });
    });

    describe('resources', () => {
      it('returns a text resource with its size in the very next get', async () => {
        const info = await store.putResource(text('readme', 'héllo'));
        expect(info).toEqual({
          uri: 'notes://readme',
          name: 'readme',
          mimeType: 'text/markdown',
          size: 6,
        });
        expect(await store.getResource('notes://readme')).toEqual({
          ...text('readme', 'héllo'),
          size: 6,
        });
      });

      it('returns a blob resource byte for byte', async () => {
        const bytes = [0, 1, 2, 250, 255, 0, 128];
        await store.putResource(blob('raw', bytes));
        const got = await store.getResource('files://bin/raw');
        expect(got?.blob).toBe(Buffer.from(bytes).toString('base64'));
        expect(got?.text).toBeUndefined();
        expect(got?.size).toBe(bytes.length);
      });

      it('lists resources by URI without their contents', async () => {
        await store.putResource(text('b'));
        await store.putResource(blob('z', [1]));
        await store.putResource(text('a', 'x'));
        const list = await store.listResources();
        expect(list.map((r) => r.uri)).toEqual(['files://bin/z', 'notes://a', 'notes://b']);
        for (const info of list) {
          expect(info).not.toHaveProperty('text');
          expect(info).not.toHaveProperty('blob');
        }
        expect(list[1]).toEqual({
          uri: 'notes://a',
          name: 'a',
          mimeType: 'text/markdown',
          size: 1,
        });
      });

      it('replaces a resource put at the same URI, even as another kind', async () => {
        await store.putResource(text('doc', 'old'));
        await store.putResource({ uri: 'notes://doc', name: 'doc2', blob: 'AAE=' });
        expect(await store.getResource('notes://doc')).toEqual({
          uri: 'notes://doc',
          name: 'doc2',
          blob: 'AAE=',
          size: 2,
        });
        expect(await store.listResources()).toHaveLength(1);
      });

      it('returns true for a deleted resource and false when there was none', async () => {
        await store.putResource(text('doc'));
        expect(await store.deleteResource('notes://doc')).toBe(true);
        expect(await store.getResource('notes://doc')).toBeUndefined();
        expect(await store.deleteResource('notes://doc')).toBe(false);
      });

      it('rejects a malformed resource with invalid_resource and stores nothing', async () => {
        const bad = [
          { ...text('ok'), uri: 'relative/path' },
          { ...text('ok'), name: '__proto__' },
          { uri: 'notes://x', name: 'x' },
          { uri: 'notes://x', name: 'x', text: 'a', blob: 'AA==' },
          { uri: 'notes://x', name: 'x', blob: 'not base64!' },
        ];
        for (const value of bad) {
          expect(await rejectionCodeOf(store.putResource(value as Resource))).toBe(
            'invalid_resource',
          );
        }
        expect(await store.listResources()).toEqual([]);
      });
    });

    describe('subscribe', () => {
      it('emits each change in order, naming its kind, op and key', async () => {
        const seen: StoreChange[] = [];
        const stop = store.subscribe((change) => seen.push(change));
        await store.putPrompt(prompt('greet'));
        await store.putResource(text('doc'));
        await store.deletePrompt('greet');
        await store.deletePrompt('greet');
        await store.deleteResource('notes://doc');
        stop();
        expect(seen).toEqual([
          { kind: 'prompt', op: 'put', name: 'greet' },
          { kind: 'resource', op: 'put', uri: 'notes://doc', name: 'doc' },
          { kind: 'prompt', op: 'delete', name: 'greet' },
          { kind: 'resource', op: 'delete', uri: 'notes://doc', name: 'doc' },
        ]);
      });

      it('shows the change to a listener reading the store', async () => {
        const reads: Promise<Prompt | undefined>[] = [];
        const stop = store.subscribe((change) => {
          if (change.kind === 'prompt') reads.push(store.getPrompt(change.name));
        });
        await store.putPrompt(prompt('greet', 'v1'));
        await store.putPrompt(prompt('greet', 'v2'));
        stop();
        const got = (await Promise.all(reads)).map((p) => p?.template);
        // Each read sees its change or a later one, never the store from before it. The second
        // put may overtake the first read: the caller sends it once the first put resolves, and
        // a store with a pool of connections (PostgreSQL) runs the two statements side by side.
        expect(got).toHaveLength(2);
        expect(['v1', 'v2']).toContain(got[0]);
        expect(got[1]).toBe('v2');
      });

      it('stops emitting to a listener once it unsubscribes, and keeps the others', async () => {
        const first: string[] = [];
        const second: string[] = [];
        const stopFirst = store.subscribe((c) => first.push(c.op));
        const stopSecond = store.subscribe((c) => second.push(c.op));
        await store.putPrompt(prompt('a'));
        stopFirst();
        stopFirst();
        await store.deletePrompt('a');
        stopSecond();
        expect(first).toEqual(['put']);
        expect(second).toEqual(['put', 'delete']);
      });

      it('emits nothing for a rejected write', async () => {
        const seen: StoreChange[] = [];
        const stop = store.subscribe((change) => seen.push(change));
        const put = store.putPrompt({ name: 'bad name' } as unknown as Prompt);
        expect(await rejectionCodeOf(put)).toBeDefined();
        stop();
        expect(seen).toEqual([]);
      });
    });

    describe('cancellation and closing', () => {
      it('rejects with cancelled when the signal has aborted, and writes nothing', async () => {
        const signal = AbortSignal.abort();
        expect(await rejectionCodeOf(store.putPrompt(prompt('greet'), { signal }))).toBe(
          'cancelled',
        );
        expect(await rejectionCodeOf(store.listResources({ signal }))).toBe('cancelled');
        expect(await store.getPrompt('greet')).toBeUndefined();
      });

      it('rejects with store_error after close, and close is idempotent', async () => {
        await store.close();
        await store.close();
        expect(await rejectionCodeOf(store.listPrompts())).toBe('store_error');
        expect(await rejectionCodeOf(store.putResource(text('doc')))).toBe('store_error');
      });
    });

    describe('random operation sequences', () => {
      it('matches a map model after 300 seeded puts and deletes', async () => {
        let seed = 0x2545f491;
        const next = (n: number): number => {
          // xorshift32: deterministic, so a failure reproduces.
          seed ^= seed << 13;
          seed ^= seed >>> 17;
          seed ^= seed << 5;
          return (seed >>> 0) % n;
        };
        const names = 'abcdef';
        const promptModel = new Map<string, string>();
        const resourceModel = new Map<string, string>();
        for (let i = 0; i < 300; i++) {
          const key = names.charAt(next(names.length));
          switch (next(4)) {
            case 0:
              await store.putPrompt(prompt(key, `t${i}`));
              promptModel.set(key, `t${i}`);
              break;
            case 1:
              expect(await store.deletePrompt(key)).toBe(promptModel.delete(key));
              break;
            case 2:
              await store.putResource(text(key, `r${i}`));
              resourceModel.set(`notes://${key}`, `r${i}`);
              break;
            default:
              expect(await store.deleteResource(`notes://${key}`)).toBe(
                resourceModel.delete(`notes://${key}`),
              );
          }
        }
        const prompts = await store.listPrompts();
        expect(Object.fromEntries(prompts.map((p) => [p.name, p.template]))).toEqual(
          Object.fromEntries(promptModel),
        );
        for (const [uri, body] of resourceModel) {
          expect((await store.getResource(uri))?.text).toBe(body);
        }
        expect((await store.listResources()).map((r) => r.uri)).toEqual(
          [...resourceModel.keys()].sort(),
        );
      });
    });

    const { reopen } = options;
    if (reopen !== undefined) {
      describe('shared data', () => {
        it('keeps every write across close and reopen', async () => {
          await store.putPrompt(prompt('greet'));
          await store.putResource(blob('raw', [9, 8, 7]));
          await store.close();
          store = await reopen();
          expect(await store.getPrompt('greet')).toEqual(prompt('greet'));
          expect((await store.getResource('files://bin/raw'))?.blob).toBe('CQgH');
        });

        it('loses no update when two instances write interleaved', async () => {
          const other = await reopen();
          extra.push(other);
          const writes: Promise<unknown>[] = [];
          for (let i = 0; i < 50; i++) {
            writes.push(store.putPrompt(prompt(`one-${i}`)));
            writes.push(other.putPrompt(prompt(`two-${i}`)));
          }
          await Promise.all(writes);
          expect(await store.listPrompts()).toHaveLength(100);
          expect(await other.listPrompts()).toHaveLength(100);
        });
      });
    }
  });
}
