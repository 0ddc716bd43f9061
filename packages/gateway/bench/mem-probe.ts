// Preloaded (`node --expose-gc --import`) into each server of the memory benchmark: on SIGUSR2 it
// collects garbage and writes the heap in use (bytes) to stderr as one `HEAP <bytes>` line, so the
// benchmark reads a peer's own heap after GC without an inspector client of its own.
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('mem-probe needs node --expose-gc');
process.on('SIGUSR2', () => {
  // Twice: the first pass can leave objects with finalizers (sockets, streams) for the second.
  gc();
  gc();
  process.stderr.write(`HEAP ${String(process.memoryUsage().heapUsed)}\n`);
});
