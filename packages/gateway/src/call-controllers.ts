import { getEventListeners } from 'node:events';
import { BUILTIN_NAMESPACE } from '@toolplane/toolkit';
import type { ToolItem } from './items.js';

// Controllers of ended lane calls, ready for the next ones. On Node 20 making an AbortSignal
// (an EventTarget whose prototype is swapped after construction) costs more CPU than the rest of
// a lane call's objects together, and nearly every call ends without being cancelled.
const spares: AbortController[] = [];
// Enough for the calls in flight at once on a busy gateway; more would only hold memory.
const MAX_SPARES = 64;

/** A controller for one lane call: a spare one when {@link releaseController} kept one. */
export function callController(): AbortController {
  return spares.pop() ?? new AbortController();
}

/**
 * Takes back the controller of a lane call of `item` that has ended and been answered, keeping it
 * for another call only when nothing can tell the difference: it never aborted, no abort listener
 * is left on its signal (the upstream client's request removed its own when it settled), and the
 * tool is an upstream's, so its signal went only to code of ours and the upstream client, none of
 * which holds it past the call (a builtin's own code might, so a builtin's is never kept).
 */
export function releaseController(controller: AbortController, item: ToolItem): void {
  if (spares.length >= MAX_SPARES || item.namespace === BUILTIN_NAMESPACE) return;
  const { signal } = controller;
  if (signal.aborted || getEventListeners(signal, 'abort').length > 0) return;
  spares.push(controller);
}
