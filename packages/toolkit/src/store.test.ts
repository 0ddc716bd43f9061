import { describe, expect, it } from 'vitest';
import { createChangeEmitter, createMemoryStore, type StoreChange } from './store.js';
import { describeStoreContract } from './testing/index.js';

describeStoreContract('createMemoryStore', { create: () => createMemoryStore() });

describe('createChangeEmitter', () => {
  it('keeps delivering to other listeners when one throws, and rethrows the error later', async () => {
    const emitter = createChangeEmitter();
    const seen: string[] = [];
    const failure = new Error('listener failed');
    const uncaught = new Promise<unknown>((resolve) => {
      const listeners = process.listeners('uncaughtException');
      process.removeAllListeners('uncaughtException');
      process.once('uncaughtException', (error) => {
        for (const listener of listeners) process.on('uncaughtException', listener);
        resolve(error);
      });
    });
    emitter.subscribe(() => {
      throw failure;
    });
    emitter.subscribe((change) => seen.push(change.op));
    const change: StoreChange = { kind: 'prompt', op: 'put', name: 'a' };
    emitter.emit(change);
    expect(seen).toEqual(['put']);
    expect(await uncaught).toBe(failure);
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
