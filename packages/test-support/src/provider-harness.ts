import type { Toolkit } from '@toolplane/toolkit';
import { afterEach } from 'vitest';
import { useFixtureToolkit } from './fixture-toolkit.js';
import { startMockServer, type MockModelServer, type Step } from './mock-server.js';

/** What a provider package's tests share: see {@link useProviderHarness}. */
export interface ProviderHarness<C> {
  /** A toolkit with the stdio fixture server as `fx`, running for the whole test file. */
  readonly toolkit: Toolkit;
  /** A real provider client pointed at a new scripted model server, closed after the test. */
  client(script: Step[]): Promise<C>;
  /** The model server of the running test, with the requests it received. */
  server(): MockModelServer | undefined;
}

/**
 * Sets up, for one test file, the fixture toolkit and the scripted model server a provider's
 * real client talks to: `prefix` is the API's path prefix, `check` the wire format's checker,
 * `connect` makes the provider's client for the server's URL.
 */
export function useProviderHarness<C>(
  prefix: string,
  check: (path: string, body: Record<string, unknown>) => string[],
  connect: (url: string) => C,
): ProviderHarness<C> {
  const toolkit = useFixtureToolkit();
  let server: MockModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return {
    toolkit,
    async client(script) {
      server = await startMockServer(prefix, script, check);
      return connect(server.url);
    },
    server: () => server,
  };
}
