import { describe, expect, it } from 'vitest';
import { callController, releaseController } from './call-controllers.js';
import type { ToolItem } from './items.js';

const upstream = { type: 'tool', namespace: 'fx', name: 'echo', id: 'fx:echo' } as ToolItem;
const builtin = { type: 'tool', namespace: 'builtin', name: 'x', id: 'builtin:x' } as ToolItem;

describe('callController', () => {
  it('hands out again the controller of an ended upstream call nobody listens to', () => {
    const first = callController();
    releaseController(first, upstream);
    expect(callController()).toBe(first);
  });

  it('never hands out a controller that aborted', () => {
    const first = callController();
    first.abort();
    releaseController(first, upstream);
    const next = callController();
    expect(next).not.toBe(first);
    expect(next.signal.aborted).toBe(false);
  });

  it('keeps no controller whose signal still has an abort listener', () => {
    const first = callController();
    first.signal.addEventListener('abort', () => undefined);
    releaseController(first, upstream);
    expect(callController()).not.toBe(first);
  });

  it("keeps no builtin call's controller (its code may hold the signal)", () => {
    const first = callController();
    releaseController(first, builtin);
    expect(callController()).not.toBe(first);
  });
});
