import { everythingCommand, fixtureCommand } from '@toolplane/fixtures';
import { createToolkit, type Toolkit, type ToolkitOptions } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll } from 'vitest';

/**
 * The toolkit's own options (an approval policy, builtins, a short reconnect backoff…), and which
 * upstream servers {@link useFixtureToolkit} connects besides the stdio fixture.
 */
export interface FixtureToolkitOptions extends ToolkitOptions {
  /** Also connect the reference `everything` server, as the namespace `everything`. */
  readonly everything?: boolean;
}

/**
 * A toolkit for one test file (or one `describe` block): the stdio fixture server as `fx` (and,
 * when asked, the reference `everything` server), running from the file's `beforeAll` until its
 * `afterAll`. Hooks a file registers after this call run inside that span (vitest runs `afterAll`
 * hooks last-in first-out), so what they open over the toolkit (a code mode, say) is closed before
 * the toolkit stops.
 */
export function useFixtureToolkit(options: FixtureToolkitOptions = {}): Toolkit {
  const { everything, ...toolkitOptions } = options;
  const toolkit = createToolkit(toolkitOptions);
  if (everything === true) {
    toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
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
