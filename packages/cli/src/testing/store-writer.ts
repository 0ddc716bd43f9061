// Child-process entry for the fleet tests: writes prompts to the shared PostgreSQL store through
// the store API, as an instance does, `concurrency` at a time, and prints `ACK <name>` on stdout
// once each write has been acknowledged (its promise resolved), until it is killed.
// Usage: store-writer.ts <postgres-url> <prefix> [concurrency]
import { createPostgresStore } from '@toolplane/store-postgres';

const [url = '', prefix = 'w', concurrency = '4'] = process.argv.slice(2);
const store = await createPostgresStore({ connectionString: url });
let next = 0;
process.stdout.write('READY\n');
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    for (;;) {
      const name = `${prefix}-${String(next++)}`;
      await store.putPrompt({ name, description: 'fleet durability', template: name });
      process.stdout.write(`ACK ${name}\n`);
    }
  }),
);
