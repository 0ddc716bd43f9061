// A child process for the pin store's concurrency test: opens the pin store on `path`, prints
// "ready", waits for "go" on stdin (so two children write at the same time), then records
// `count` changes of one tool (each a new definition, so each one writes) and accepts the
// namespace's changes every fourth time. It prints the codes of the calls that failed as one JSON
// line, `{"failures":[...]}`, and exits.
import { fingerprintTool } from '@toolplane/toolkit';
import { createSqlitePinStore } from './sqlite-pins.js';
import { readyThenGo } from './go.fixture.js';

const [path, prefix = 'w', countText = '1'] = process.argv.slice(2);
const count = Number(countText);
const store = createSqlitePinStore({ path });
const pinned = fingerprintTool({ name: 'echo', description: 'pinned' });

await readyThenGo();

const failures: string[] = [];
const attempt = async (work: () => Promise<unknown>): Promise<void> => {
  try {
    await work();
  } catch (error) {
    failures.push(`${String((error as { code?: unknown }).code)}: ${(error as Error).message}`);
  }
};
for (let i = 0; i < count; i++) {
  const current = fingerprintTool({ name: 'echo', description: `${prefix}-${String(i)}` });
  await attempt(() =>
    store.recordChange(
      { namespace: 'fx', tool: 'echo', pinned, current, seenAt: i },
      {
        kind: 'pin.changed',
        at: i,
        toolId: 'fx:echo',
        who: prefix,
        fingerprint: current.fingerprint,
        previous: pinned.fingerprint,
      },
    ),
  );
  if (i % 4 === 3) await attempt(() => store.accept({ namespace: 'fx' }, prefix));
}
process.stdout.write(`${JSON.stringify({ failures })}\n`);
await store.close();
