import { type Client } from '@modelcontextprotocol/client';
// Test helpers around the fixture's `slow` tool, reached through a gateway as `fx__slow`.

/**
 * Starts a `slow` call labelled `label`, cancels it once the upstream has started it (its first
 * progress report), and resolves to the upstream's own account: `{ cancelled: true }` when the
 * cancel reached it.
 */
export async function cancelMidCall(client: Client, label: string): Promise<unknown> {
  const controller = new AbortController();
  await new Promise<void>((resolve) => {
    client
      .callTool(
        { name: 'fx__slow', arguments: { ms: 30_000, label } },
        {
          signal: controller.signal,
          onprogress: () => {
            resolve();
          },
        },
      )
      .catch(() => undefined);
  });
  controller.abort();
  const seen = await client.callTool({
    name: 'fx__wait-cancelled',
    arguments: { label, timeoutMs: 5000 },
  });
  return seen.structuredContent;
}

/**
 * Starts `count` long `slow` calls and resolves once the upstream has started every one, with
 * `outcomes`: each call's result or the error it failed with, once all have settled. (Wrapped in
 * an object because an async function cannot resolve to a promise.)
 */
export async function startSlowCalls(
  client: Client,
  count: number,
  label: string,
): Promise<{ outcomes: Promise<unknown[]> }> {
  let started = 0;
  const calls: Promise<unknown>[] = [];
  await new Promise<void>((resolve) => {
    const onStart = (): void => {
      if (++started === count) resolve();
    };
    for (let i = 0; i < count; i++) {
      calls.push(
        client
          .callTool(
            { name: 'fx__slow', arguments: { ms: 30_000, label: `${label}-${i}` } },
            {
              onprogress: onStart,
            },
          )
          .then(
            (result) => result,
            (error: unknown) => error,
          ),
      );
    }
  });
  return { outcomes: Promise.all(calls) };
}
