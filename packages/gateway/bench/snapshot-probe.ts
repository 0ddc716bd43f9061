// Preloaded (`node --expose-gc --import`) into the gateway child of session-snapshot.ts: on
// SIGUSR1 it collects garbage, writes a heap snapshot into SNAPSHOT_DIR and says so on stderr as
// one `SNAPSHOT <heap bytes> <file>` line, so the bench waits for the file rather than a while.
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('snapshot-probe needs node --expose-gc');
let taken = 0;
process.on('SIGUSR1', () => {
  gc();
  gc();
  const heap = process.memoryUsage().heapUsed;
  taken += 1;
  const file = writeHeapSnapshot(
    join(process.env.SNAPSHOT_DIR ?? '.', `session-${String(taken)}.heapsnapshot`),
  );
  process.stderr.write(`SNAPSHOT ${String(heap)} ${file}\n`);
});
