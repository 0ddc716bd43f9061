import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit, type Toolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll } from 'vitest';
import { referenceServer } from './reference-servers.js';

/** Which upstream servers {@link useFixtureToolkit} connects besides the stdio fixture. */
export interface FixtureToolkitOptions {
  /** Also connect the reference `everything` server, as the namespace `everything`. */
  readonly everything?: boolean;
}

/**
 * A toolkit for one test file: the stdio fixture server as `fx` (and, when asked, the reference
 * `everything` server), running from the file's `beforeAll` until its `afterAll`. Hooks a file
 * registers after this call run inside that span (vitest runs `afterAll` hooks last-in first-out),
 * so what they open over the toolkit (a code mode, say) is closed before the toolkit stops.
 */
export function useFixtureToolkit(options: FixtureToolkitOptions = {}): Toolkit {
  const toolkit = createToolkit();
  if (options.everything === true) {
    toolkit.addConnector(
      { command: process.execPath, args: [referenceServer('everything'), 'stdio'] },
      { namespace: 'everything' },
    );
  }
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  let running: RunningToolkit | undefined;
  beforeAll(async () => {
    running = await runToolkit(toolkit);
  });
  afterAll(async () => {
    await running?.stop();
  });
  return toolkit;
}
