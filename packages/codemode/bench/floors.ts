/**
 * The floors under a tool call from inside the sandbox, measured on this machine in the same
 * process as the rest of the benchmark:
 * - one round trip between the main thread and a worker thread, as a run's calls cross it:
 *   the worker posts on a MessagePort and sleeps in `Atomics.wait`, the main thread hears the
 *   message through its event loop and answers with `Atomics.notify` (two thread wake-ups);
 *   and the same round trip with both threads spinning on the shared counters (no wake-up);
 * - QuickJS's own share of `await tools.x.y(args)`: an async call, an await and JSON both
 *   ways, with the answer made inside the sandbox (no thread crossed).
 */
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { compare, timing, type Timing } from '@toolplane/test-support/bench';
import type { CodeMode } from '@toolplane/codemode';

// Plain JavaScript, so that the worker needs no loader. `mode` 0: sleep; 1: spin.
const ECHO = `
const { workerData, parentPort, receiveMessageOnPort } = require('node:worker_threads');
const { control, port } = workerData;
const c = new Int32Array(control);
parentPort.on('message', ({ trips, spin }) => {
  for (let i = 0; i < trips; i++) {
    const seen = Atomics.load(c, 0);
    port.postMessage(i);
    Atomics.add(c, 1, 1);
    if (spin) { while (Atomics.load(c, 0) === seen) {} }
    else { while (Atomics.load(c, 0) === seen) Atomics.wait(c, 0, seen); }
    receiveMessageOnPort(port);
  }
  parentPort.postMessage('done');
});
`;

/** µs per round trip between threads: woken through the event loop and a futex, and spinning. */
export async function threadRoundTrips(
  trips: number,
): Promise<{ sleeping: Timing; spinning: Timing }> {
  const control = new SharedArrayBuffer(8);
  const c = new Int32Array(control);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(ECHO, {
    eval: true,
    workerData: { control, port: port2 },
    transferList: [port2],
  });
  const answer = (): void => {
    port1.postMessage(0);
    Atomics.add(c, 0, 1);
    Atomics.notify(c, 0);
  };
  const sleeping = (): Promise<void> =>
    new Promise((resolve) => {
      let left = trips;
      const onMessage = (): void => {
        answer();
        if (--left === 0) {
          port1.off('message', onMessage);
          worker.once('message', () => {
            resolve();
          });
        }
      };
      port1.on('message', onMessage);
      worker.postMessage({ trips, spin: false });
    });
  const spinning = (): Promise<void> =>
    new Promise((resolve) => {
      worker.once('message', () => {
        resolve();
      });
      // Read before the worker can start, or its first bump could be taken for the baseline.
      let seen = Atomics.load(c, 1);
      worker.postMessage({ trips, spin: true });
      for (let i = 0; i < trips; i++) {
        while (Atomics.load(c, 1) === seen) {
          // spin: the worker's next message is the only thing this waits for
        }
        seen = Atomics.load(c, 1);
        receiveMessageOnPort(port1);
        answer();
      }
    });
  try {
    const samples = await compare({ sleeping, spinning }, { iterations: 1, rounds: 15 });
    const per = (name: string): Timing => {
      const t = timing(samples, name);
      return {
        wall: t.wall / trips,
        wallMin: t.wallMin / trips,
        cpu: t.cpu / trips,
        cpuMin: t.cpuMin / trips,
      };
    };
    return { sleeping: per('sleeping'), spinning: per('spinning') };
  } finally {
    port1.close();
    await worker.terminate();
  }
}

/** µs of QuickJS per `await f(args)` with JSON both ways and no thread crossed, start left out. */
export async function quickjsPerCall(code: CodeMode, calls: number): Promise<Timing> {
  const program = `const f = async (a) => JSON.parse(JSON.stringify({ sum: a.a + a.b }));
for (let i = 0; i < ${String(calls)}; i++) await f(JSON.parse(JSON.stringify({ a: 2, b: 3 })));`;
  const samples = await compare(
    { inside: () => code.run(program), trivial: () => code.run('return 1;') },
    { iterations: 3, rounds: 15 },
  );
  const inside = timing(samples, 'inside');
  const trivial = timing(samples, 'trivial');
  return {
    wall: (inside.wall - trivial.wall) / calls,
    wallMin: (inside.wallMin - trivial.wallMin) / calls,
    cpu: (inside.cpu - trivial.cpu) / calls,
    cpuMin: (inside.cpuMin - trivial.cpuMin) / calls,
  };
}
