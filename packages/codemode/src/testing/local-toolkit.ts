import { createToolkit, defineTool, getSession, type Toolkit } from '@toolplane/toolkit';

// A toolkit of local tools for the code-mode tests: arithmetic, a small data set to filter, a
// tool that fails, one that waits until it is cancelled, and names that are not identifiers.

/** The orders `builtin:list_orders` answers with. */
export const ORDERS = Array.from({ length: 30 }, (_, i) => ({
  id: `o${String(i + 1)}`,
  customer: ['ada', 'bob', 'cy'][i % 3] as string,
  total: ((i * 37) % 100) + 0.5,
  note: 'x'.repeat(200),
}));

/** What each test can see of the tools' side. */
export interface ToolSide {
  /** Calls of `builtin:wait_forever` that started, and that were cancelled through their signal. */
  waiting: number;
  cancelled: number;
  /** Calls of `builtin:mark`. */
  marks: number;
  /** The session IDs the tools saw. */
  sessions: (string | undefined)[];
}

/** The toolkit and the record of its tools' side. */
export function localToolkit(): { toolkit: Toolkit; side: ToolSide } {
  const side: ToolSide = { waiting: 0, cancelled: 0, marks: 0, sessions: [] };
  const toolkit = createToolkit({
    tools: [
      defineTool({
        name: 'add',
        description: 'Adds two numbers.',
        input: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
          additionalProperties: false,
        },
        output: {
          type: 'object',
          properties: { sum: { type: 'number' } },
          required: ['sum'],
        },
        run: (args) => {
          side.sessions.push(getSession().id);
          return { sum: (args.a as number) + (args.b as number) };
        },
      }),
      defineTool({
        name: 'list_orders',
        description: 'Lists every order.',
        input: { type: 'object', properties: {} },
        run: () => ORDERS,
      }),
      defineTool({
        name: 'greet',
        description: 'Greets someone, in text.',
        input: { type: 'object', properties: { name: { type: 'string' } } },
        run: (args) => `hello ${typeof args.name === 'string' ? args.name : 'you'}`,
      }),
      defineTool({
        name: 'fail',
        description: 'Always fails.',
        input: { type: 'object', properties: {} },
        run: () => {
          throw new Error('the tool broke');
        },
      }),
      defineTool({
        name: 'wait_forever',
        description: 'Answers only when cancelled.',
        input: { type: 'object', properties: {} },
        run: (_args, context) =>
          new Promise((_resolve, reject) => {
            side.waiting++;
            context.signal.addEventListener('abort', () => {
              side.cancelled++;
              reject(new Error('cancelled'));
            });
          }),
      }),
      defineTool({
        name: 'mark',
        description: 'Counts its calls.',
        input: { type: 'object', properties: {} },
        run: () => ++side.marks,
      }),
      defineTool({
        name: 'get-sum.v2',
        description: 'A name with characters that are not identifier characters.',
        tags: ['odd'],
        input: { type: 'object', properties: {} },
        run: () => 42,
      }),
    ],
  });
  return { toolkit, side };
}
