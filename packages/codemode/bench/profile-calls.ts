/**
 * Sequential tool calls from one run, for a CPU profile of both threads:
 *
 *   node --cpu-prof --conditions=@toolplane/source --import tsx bench/profile-calls.ts local 10000
 *
 * (`local`: the runner's `bench:add`; `mcp`: the stdio fixture's `add`, the same calls also made
 * directly through the toolkit first.) Set `TOOLPLANE_CODEMODE_SPIN=on|off` to profile the
 * spinning or the sleeping crossing whatever the load. Prints µs of wall and process CPU a call.
 */
import { benchSource } from '@toolplane/test-support/bench';
import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';
import { createCodeMode } from '@toolplane/codemode';

const kind = process.argv[2] === 'mcp' ? 'mcp' : 'local';
const calls = Number(process.argv[3] ?? 10_000);
const reps = Number(process.argv[4] ?? 1);

async function measure(label: string, work: () => Promise<unknown>): Promise<void> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const wall = ((performance.now() - start) * 1000) / calls;
  const used = process.cpuUsage(cpu);
  const perCpu = (used.user + used.system) / calls;
  console.log(`${label.padEnd(12)} ${wall.toFixed(1)} µs a call (CPU ${perCpu.toFixed(1)} µs)`);
}

const loop = (id: string): string =>
  `for (let i = 0; i < ${String(calls)}; i++) await tools.${id}({ a: 2, b: 3 });`;

if (kind === 'local') {
  const code = createCodeMode(benchSource(), { maxToolCalls: calls });
  await code.run('return 1;');
  for (let r = 0; r < reps; r++) await measure('sandbox', () => code.run(loop('bench.add')));
  await code.close();
} else {
  const toolkit = createToolkit();
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  const running = await runToolkit(toolkit);
  const code = createCodeMode(toolkit, { maxToolCalls: calls });
  try {
    await code.run('return 1;');
    await toolkit.callTool('fx:add', { a: 2, b: 3 });
    for (let r = 0; r < reps; r++) {
      await measure('direct', async () => {
        for (let i = 0; i < calls; i++) await toolkit.callTool('fx:add', { a: 2, b: 3 });
      });
      await measure('sandbox', () => code.run(loop('fx.add')));
    }
  } finally {
    await code.close();
    await running.stop();
  }
}
