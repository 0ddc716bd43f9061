import { createIndex } from '@toolplane/toolindex';
import { whenIdle } from './idle-work.js';

// A tool as MCP servers list them: a title, a description, an input schema with the common
// shapes (a required string, a bounded number, an enum, an array, a nested object), annotations
// and an output schema, so a registration walks the code paths a real one will.
const SAMPLE = {
  name: 'warm_up',
  title: 'Warm-up',
  description: 'Registers nothing anyone sees: the first registration costs the compilation.',
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'Some text.' },
      count: { type: 'number', minimum: 0, maximum: 10 },
      mode: { type: 'string', enum: ['a', 'b'] },
      items: { type: 'array', items: { type: 'string' } },
      nested: { type: 'object', properties: { on: { type: 'boolean' } } },
    },
    required: ['text'],
  },
  outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  annotations: { readOnlyHint: true },
};

let queued = false;

/**
 * Queues, once per process, the registration of a sample MCP tool in a throwaway index, as idle
 * work (see `idle-work.ts`). Why: the first MCP tools a process registers take ~5 ms where the
 * next take ~1 ms (V8 compiling the conversion and indexing paths on first use), and a one-shot
 * command pays that after the server's answer, on the way to its output.
 */
export function warmMcpRegistration(): void {
  if (queued) return;
  queued = true;
  whenIdle(() => {
    createIndex().registerMcpTools('warm-up', [SAMPLE], {
      namespace: 'warm-up',
      replace: true,
      prune: true,
    });
  });
}
