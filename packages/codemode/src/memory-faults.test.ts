import { afterEach, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { localToolkit } from './testing/local-toolkit.js';
import { failureOf } from './testing/outcome.js';

// QuickJS's paths for an allocation that fails are not all sound. Near its memory bound a deep
// chain of awaits can make the engine fault ("memory access out of bounds", which read as an
// `internal` failure of the sandbox) or drop a promise job it has no room to queue (which read
// as a program that awaits a promise that can never settle). Either is the memory bound, and
// the program is told so. Which run meets which depends on the engine's heap at the time: the
// sequences below are the ones that met them, each in a fresh worker.

const CHAIN =
  'const f = async (n) => { await null; return [n, await f(n + 1)]; }; return await f(0);';
// The same holding four more values a level: the second run in a 16 MiB worker faulted.
const WIDE =
  'const f = async (n) => { await null; return [n, n, n, n, await f(n + 1)]; }; return await f(0);';
// A thousand levels between awaits: the second run in a 32 MiB worker lost a job.
const BURSTS =
  'const f = async (n) => { if (n % 1000 === 0) await null; return [n, await f(n + 1)]; }; return await f(0);';

const outOfMemory = (mib: number): string =>
  `out of memory: the program needs more than its ${String(mib)} MiB of memory (memoryLimitBytes); keep less at once`;

let code: CodeMode | undefined;
afterEach(async () => {
  await code?.close();
  code = undefined;
});

/** One worker held to `mib` MiB, with a wall-clock bound no loaded machine reaches. */
function oneWorker(mib: number): CodeMode {
  code = createCodeMode(localToolkit().toolkit, {
    memoryLimitBytes: mib << 20,
    maxConcurrentRuns: 1,
    timeoutMs: 120_000,
  });
  return code;
}

async function outcomes(on: CodeMode, programs: string[]): Promise<string[]> {
  const ended: string[] = [];
  for (const program of programs) {
    const error = await failureOf(program, on);
    ended.push(`${error.code}: ${error.message}`);
  }
  return ended;
}

describe('a program that runs out of memory where QuickJS itself fails', () => {
  it('ends as resource_exhausted when the engine faults, and the next run works', async () => {
    const on = oneWorker(16);
    const exhausted = `resource_exhausted: ${outOfMemory(16)}`;
    expect(await outcomes(on, [CHAIN, WIDE])).toEqual([exhausted, exhausted]);
    // The faulted worker was replaced.
    expect((await on.run('return (await tools.builtin.add({ a: 2, b: 3 })).sum;')).value).toBe(5);
  });

  it('ends as resource_exhausted when a promise job is dropped, not as a promise never settled', async () => {
    const on = oneWorker(32);
    const exhausted = `resource_exhausted: ${outOfMemory(32)}`;
    expect(await outcomes(on, [BURSTS, BURSTS])).toEqual([exhausted, exhausted]);
    expect((await on.run('return (await tools.builtin.add({ a: 2, b: 3 })).sum;')).value).toBe(5);
  });

  it('still says a promise can never settle when the memory never ran short', async () => {
    const error = await failureOf('await new Promise(() => {});', oneWorker(32));
    expect(`${error.code}: ${error.message}`).toBe(
      'execution: the program awaits a promise that can never settle (no tool call is in flight)',
    );
  });
});
