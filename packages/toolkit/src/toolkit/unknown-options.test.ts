import { errorCodeOf } from '@toolplane/toolmodel/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryStore, createToolkit, type ToolkitOptions } from '../index.js';

/** What plain JavaScript can hand `createToolkit`, past the type. */
function untyped(options: unknown): ToolkitOptions {
  return options as ToolkitOptions;
}

describe('createToolkit options', () => {
  it('refuses a key it does not know, as a misspelling or by analogy', () => {
    expect(errorCodeOf(() => createToolkit(untyped({ tols: [] })))).toBe('invalid_argument');
    expect(
      errorCodeOf(() =>
        createToolkit(untyped({ connectors: [{ command: 'node', args: ['server.js'] }] })),
      ),
    ).toBe('invalid_argument');
    expect(errorCodeOf(() => createToolkit(untyped({ zzz: 1 })))).toBe('invalid_argument');
  });

  it('names the key, and the known one it is close to', () => {
    let message = '';
    try {
      createToolkit(untyped({ middlewares: [] }));
    } catch (error) {
      message = (error as Error).message;
    }
    // The message's promise (the one this file reads text for): both keys are named.
    expect(message).toContain('"middlewares"');
    expect(message).toContain('"middleware"');
  });

  it('accepts every key it knows, and no options at all', async () => {
    const toolkit = createToolkit({
      tools: [],
      prompts: [],
      resources: [],
      resourceTemplates: [],
      store: createMemoryStore(),
      maxCallDepth: 4,
      middleware: [],
      secrets: [],
      connectorDefaults: {},
      sessionConnections: {},
    });
    await toolkit.close();
    await createToolkit().close();
  });
});
