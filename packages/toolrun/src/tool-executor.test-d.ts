import { describe, expectTypeOf, it } from 'vitest';
import {
  createInMemoryToolExecutor,
  InMemoryToolExecutor,
  type ToolExecutor,
  type ToolInvocationContext,
} from './index.js';

describe('InMemoryToolExecutor handlers as the MPLP guide writes them', () => {
  it('accepts handlers that declare their payload and context', () => {
    // §3.1 of the guide: typed payloads, under `tsc --strict`.
    const executor = new InMemoryToolExecutor({
      search: async (payload: { query: string; limit?: number }) => {
        await Promise.resolve();
        return [`found ${payload.query}`].slice(0, payload.limit ?? 10);
      },
      greet: (payload: { name: string }, context: ToolInvocationContext | undefined) =>
        `hello ${payload.name} from ${context?.userId ?? 'nobody'}`,
      echo: (payload) => payload,
    });
    expectTypeOf(executor).toExtend<ToolExecutor>();
    expectTypeOf(
      createInMemoryToolExecutor({ ping: (p: { n: number }) => p.n }),
    ).toEqualTypeOf<ToolExecutor>();
  });

  it('keeps an undeclared payload unknown', () => {
    new InMemoryToolExecutor({
      echo: (payload) => {
        expectTypeOf(payload).toBeUnknown();
        return payload;
      },
    });
  });

  it('refuses a record whose values are not handlers', () => {
    // @ts-expect-error a tool must be a function
    new InMemoryToolExecutor({ echo: 'not a function' });
  });
});
