import { createToolkit, type Toolkit, type ToolkitEvent } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';
import { hasPostgres, startPostgres, type PostgresServer } from './testing/postgres-server.js';

// Two gateway instances on one database: what one writes, the other shows.
describe.runIf(hasPostgres())('two toolkits sharing a PostgreSQL store', () => {
  let server: PostgresServer | undefined;
  const stores: PostgresStore[] = [];
  const toolkits: Toolkit[] = [];

  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await Promise.all(toolkits.map((toolkit) => toolkit.close()));
    await Promise.all(stores.map((store) => store.close()));
    await server?.stop();
  });

  async function instance() {
    const store = await createPostgresStore({
      connectionString: server?.url ?? '',
      schema: 'shared',
    });
    let heard: (event: ToolkitEvent) => void = () => undefined;
    const toolkit = createToolkit({
      store,
      delegate: {
        call: () => Promise.resolve(undefined),
        onEvent: (event) => {
          heard(event);
        },
      },
    });
    stores.push(store);
    toolkits.push(toolkit);
    /**
     * Resolves on the first event `match` accepts. No clock of its own: how soon the notice
     * arrives is a figure for a benchmark, and under load a second was not always enough; the
     * test's timeout catches a notice that never comes.
     */
    const next = (match: (event: ToolkitEvent) => boolean) =>
      new Promise<ToolkitEvent>((resolve) => {
        heard = (event) => {
          if (match(event)) resolve(event);
        };
      });
    return { store, toolkit, next };
  }

  it('shows a prompt written through one instance in the other', async () => {
    const first = await instance();
    const second = await instance();
    const seen = second.next((e) => e.type === 'prompt_list_changed' && e.namespace === 'user');
    await first.store.putPrompt({ name: 'triage', template: 'Triage {{ issue }}' });
    await seen;
    const listed = await second.toolkit.list({ namespace: 'user', type: 'prompt' });
    expect(listed.prompts.map((p) => p.name)).toEqual(['triage']);
    expect((await second.toolkit.getPrompt('user:triage', { issue: '#7' })).text).toBe('Triage #7');
  });
});
