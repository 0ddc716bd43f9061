import { describe, expect, it } from 'vitest';
import { createChangeEmitter, createMemoryStore, type StoreChange } from './store.js';
import { describeStoreContract } from './testing/vitest.js';

describeStoreContract('createMemoryStore', { create: () => createMemoryStore() });

describe('createChangeEmitter', () => {
  it('keeps delivering to other listeners when one throws, and reports the error', () => {
    const failures: unknown[] = [];
    const emitter = createChangeEmitter({ onListenerError: (error) => failures.push(error) });
    const seen: string[] = [];
    const failure = new Error('listener failed');
    emitter.subscribe(() => {
      throw failure;
    });
    emitter.subscribe((change) => seen.push(change.op));
    const change: StoreChange = { kind: 'prompt', op: 'put', name: 'a' };
    emitter.emit(change);
    expect(seen).toEqual(['put']);
    expect(failures).toEqual([failure]);
  });

  it('gives one function subscribed twice two independent subscriptions', () => {
    const emitter = createChangeEmitter();
    const seen: string[] = [];
    const listener = (change: StoreChange): void => {
      seen.push(change.op);
    };
    const stopFirst = emitter.subscribe(listener);
    emitter.subscribe(listener);
    stopFirst();
    emitter.emit({ kind: 'prompt', op: 'delete', name: 'a' });
    expect(seen).toEqual(['delete']);
  });
});
