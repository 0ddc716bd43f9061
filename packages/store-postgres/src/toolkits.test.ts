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
    /** Resolves on the first event `match` accepts; rejects after `ms`. */
    const next = (match: (event: ToolkitEvent) => boolean, ms: number) =>
      new Promise<ToolkitEvent>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no matching event within ${ms} ms`));
        }, ms);
        heard = (event) => {
          if (!match(event)) return;
          clearTimeout(timer);
          resolve(event);
        };
      });
    return { store, toolkit, next };
  }

  it('shows a prompt written through one instance in the other within a second', async () => {
    const first = await instance();
    const second = await instance();
    const seen = second.next(
      (e) => e.type === 'prompt_list_changed' && e.namespace === 'user',
      1_000,
    );
    await first.store.putPrompt({ name: 'triage', template: 'Triage {{ issue }}' });
    await seen;
    const listed = await second.toolkit.list({ namespace: 'user', type: 'prompt' });
    expect(listed.prompts.map((p) => p.name)).toEqual(['triage']);
    expect((await second.toolkit.getPrompt('user:triage', { issue: '#7' })).text).toBe('Triage #7');
  });
});
