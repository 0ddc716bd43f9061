import { fixtureCommand, startHttpFixture, type HttpFixture } from '@toolplane/fixtures';
import { ToolError } from '@toolplane/toolmodel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolkit } from '../testing/run-toolkit.js';
import { createToolkit, type Toolkit } from './toolkit.js';

let http: HttpFixture;
beforeAll(async () => {
  http = await startHttpFixture();
});
afterAll(async () => {
  await http.close();
});

/** Starts the fixture's `slow` call and resolves once the server has begun it (its progress 0). */
async function slowCall(toolkit: Toolkit, id: string) {
  let begun: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    begun = resolve;
  });
  const result = toolkit.callTool(
    id,
    { ms: 60_000 },
    {
      onProgress: () => {
        begun();
      },
    },
  );
  result.catch(() => undefined);
  await started;
  // Wrapped: an async function returning the call's promise would wait for it to end.
  return { result };
}

describe('calls in flight when the toolkit closes', () => {
  it('are cancelled, saying the toolkit closed, on stdio and HTTP alike', async () => {
    const toolkit = createToolkit();
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'st' });
    toolkit.addConnector(http.url, { namespace: 'ht' });
    const { stop } = await runToolkit(toolkit);
    try {
      const calls = [await slowCall(toolkit, 'st:slow'), await slowCall(toolkit, 'ht:slow')];
      await toolkit.close();
      for (const { result } of calls) {
        const error = await result.catch((e: unknown) => e);
        expect(ToolError.isInstance(error) && error.code).toBe('cancelled');
        expect((error as Error).message).toMatch(/the toolkit was closed while it ran/);
      }
    } finally {
      await stop();
    }
  });
});
