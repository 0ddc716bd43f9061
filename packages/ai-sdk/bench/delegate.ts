// What running a prompt through createAiSdkDelegate costs over calling generateText directly
// with the same model and tools: rendering the prompt, listing and narrowing the catalogue
// afresh, and the toolkit's call wrapping. The model is an in-process LanguageModelV3 answering
// at once, so the agent loop's own work is all that is measured: one step (the model answers),
// and two steps (one local tool call, then the answer), with a catalogue of 1 tool and of 1,000
// tools (the prompt's `tools` keeps one). Rounds are interleaved across cases and the median round
// is reported, wall-clock and CPU time, as a ratio to the direct generateText floor. Run with
// `pnpm --filter @toolplane/ai-sdk bench`.
import { createToolkit, defineTool, type Toolkit } from '@toolplane/toolkit';
import { generateText, stepCountIs, type LanguageModel, type ToolSet } from 'ai';
import { createAiSdkDelegate, toAiSdkTools } from '../src/index.js';

const ROUNDS = 9;
const RUNS = 300;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that calls `tool` once when `callTool`, then answers; nothing is recorded. */
function benchModel(tool: string | undefined): LanguageModel {
  return {
    specificationVersion: 'v3',
    provider: 'bench',
    modelId: 'bench',
    supportedUrls: {},
    doGenerate: (options) => {
      const answered = tool === undefined || options.prompt.at(-1)?.role === 'tool';
      return Promise.resolve({
        content: answered
          ? [{ type: 'text' as const, text: 'done' }]
          : [
              {
                type: 'tool-call' as const,
                toolCallId: 't',
                toolName: tool,
                input: '{"a":1,"b":2}',
              },
            ],
        finishReason: { unified: answered ? 'stop' : 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      });
    },
    doStream: () => Promise.reject(new Error('not streamed')),
  };
}

function makeToolkit(size: number, model: LanguageModel): Toolkit {
  const tools = Array.from({ length: size }, (_, i) =>
    defineTool({
      name: i === 0 ? 'add' : `filler_${String(i)}`,
      description: i === 0 ? 'Adds two numbers.' : `Filler tool number ${String(i)}.`,
      input: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      run: (args: unknown) => {
        const { a, b } = args as { a: number; b: number };
        return { sum: a + b };
      },
    }),
  );
  const toolkit: Toolkit = createToolkit({
    tools,
    prompts: [{ name: 'p', tools: ['builtin:add'], template: 'Add {{ a }} and {{ b }}.' }],
    delegate: createAiSdkDelegate({ source: () => toolkit, chooseModel: () => model }),
  });
  return toolkit;
}

const cases: Record<string, () => Promise<unknown>> = {};
for (const steps of [1, 2] as const) {
  const model = benchModel(steps === 2 ? 'builtin__add' : undefined);
  const small = makeToolkit(1, model);
  const tools: ToolSet = await toAiSdkTools(small, { include: { ids: ['builtin:add'] } });
  cases[`direct generateText, ${String(steps)} step(s)`] = () =>
    generateText({ model, tools, stopWhen: stepCountIs(10), prompt: 'Add 1 and 2.' });
  cases[`delegate, ${String(steps)} step(s), 1 tool`] = () => small.call('p', { a: 1, b: 2 });
  const big = makeToolkit(1000, model);
  cases[`delegate, ${String(steps)} step(s), 1,000 tools`] = () => big.call('p', { a: 1, b: 2 });
}

const names = Object.keys(cases);
const wall: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
const cpu: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (const name of names) for (let i = 0; i < RUNS / 10; i++) await cases[name]!(); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const name of names) {
    const fn = cases[name]!;
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < RUNS; i++) await fn();
    wall[name]!.push(((performance.now() - start) * 1000) / RUNS);
    const used = process.cpuUsage(cpuStart);
    cpu[name]!.push((used.user + used.system) / RUNS);
  }
}
// CPU time leaves out the time the process waited for a core, so it is the steadier figure on a
// loaded machine; the ratio and the difference are taken on it.
console.log(
  `medians of ${String(ROUNDS)} interleaved rounds of ${String(RUNS)} runs; ratio and difference on CPU time`,
);
for (const steps of [1, 2]) {
  const floorName = `direct generateText, ${String(steps)} step(s)`;
  const floor = median(cpu[floorName]!);
  for (const name of names.filter((n) => n.includes(`${String(steps)} step(s)`))) {
    const us = median(cpu[name]!);
    const sign = us >= floor ? '+' : '−';
    console.log(
      `${name.padEnd(34)} ${median(wall[name]!).toFixed(1).padStart(7)} µs/run (CPU ${us.toFixed(1).padStart(6)} µs)  ×${(us / floor).toFixed(2)}  (${sign}${Math.abs(us - floor).toFixed(1)} µs CPU)`,
    );
  }
}
