import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeModeTools, createCodeMode } from '@toolplane/codemode';
import { createToolkit } from '@toolplane/toolkit';
import { scriptedModel, type Message } from './scripted-model.js';

// Code mode, end to end and offline: the reference filesystem MCP server (a real child over
// stdio) holds one file of orders per region; a scripted model is asked for a summary of the paid
// orders per region, written to summary.json. Instead of a tool call per file, it writes one
// program that lists the files, reads and filters each, aggregates, and writes the result, all
// inside the sandbox; the model reads only the summary. The example then checks its own output.

const REGIONS = ['north', 'south', 'east', 'west', 'central', 'islands'];

/** Orders of one region: 60 of them, some refunded, with the detail a real export carries. */
function ordersOf(region: string, index: number): Record<string, unknown>[] {
  return Array.from({ length: 60 }, (_, i) => ({
    id: `${region}-${String(i + 1)}`,
    amount: ((index * 53 + i * 29) % 200) + 0.5,
    status: i % 4 === 0 ? 'refunded' : 'paid',
    customer: `customer-${String((index * 7 + i) % 40)}`,
    placedAt: new Date(Date.UTC(2026, i % 12, (i % 28) + 1)).toISOString(),
  }));
}

const require = createRequire(import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'code-mode-example-'));
mkdirSync(join(dir, 'sales'));
let fileBytes = 0;
const expected: Record<string, { orders: number; total: number }> = {};
REGIONS.forEach((region, index) => {
  const orders = ordersOf(region, index);
  const text = JSON.stringify(orders);
  fileBytes += text.length;
  writeFileSync(join(dir, 'sales', `${region}.json`), text);
  const paid = orders.filter((order) => order.status === 'paid');
  expected[region] = {
    orders: paid.length,
    total: Math.round(paid.reduce((sum, order) => sum + (order.amount as number), 0) * 100) / 100,
  };
});

const toolkit = createToolkit();
toolkit.addConnector(
  {
    command: process.execPath,
    args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), dir],
  },
  { namespace: 'filesystem' },
);
const stop = new AbortController();
const running = toolkit.run({ signal: stop.signal });
const code = createCodeMode(toolkit, { timeoutMs: 20_000, filter: { namespaces: ['filesystem'] } });
const failures: string[] = [];
const check = (ok: boolean, what: string): void => {
  if (!ok) failures.push(what);
};

try {
  await toolkit.ready();
  const tools = new Map(codeModeTools(code).map((tool) => [tool.name, tool]));
  const model = scriptedModel(dir);
  const messages: Message[] = [
    { role: 'user', text: 'Summarise the paid orders per region into summary.json.' },
  ];
  let resultBytes = 0;
  let answer = '';
  for (let turn = 0; turn < 8 && answer === ''; turn++) {
    const next = model(messages);
    if (next.type === 'answer') {
      answer = next.text;
      messages.push({ role: 'assistant', text: answer });
      break;
    }
    messages.push({ role: 'tool_call', tool: next.tool, args: next.args });
    const tool = tools.get(next.tool);
    if (tool === undefined) throw new Error(`the model called an unknown tool ${next.tool}`);
    const result = await tool.run(next.args);
    const text = result.content
      .map((block) => (block.type === 'text' ? block.text : ''))
      .join('\n');
    resultBytes += text.length;
    console.log(
      `model → ${next.tool}: ${result.isError === true ? 'error' : 'ok'}, ${String(text.length)} bytes back`,
    );
    check(result.isError !== true, `${next.tool} succeeded (${text.slice(0, 200)})`);
    messages.push({ role: 'tool_result', text });
  }

  const written = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as unknown;
  const toolTurns = messages.filter((message) => message.role === 'tool_call').length;
  console.log(`answer: ${answer}`);
  console.log(
    `model turns that called a tool: ${String(toolTurns)} (one per file and step without code mode: ${String(REGIONS.length + 2)})`,
  );
  console.log(
    `bytes of tool results the model read: ${String(resultBytes)} (the files alone: ${String(fileBytes)}, ${(fileBytes / resultBytes).toFixed(1)}× more)`,
  );
  // The program writes the regions in the order the server lists the files.
  const sorted = (value: unknown): string =>
    JSON.stringify(
      Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  check(sorted(written) === sorted(expected), 'summary.json holds the expected totals');
  const best = Object.entries(expected).sort((a, b) => b[1].total - a[1].total)[0];
  check(
    answer ===
      `Wrote summary.json for ${String(REGIONS.length)} regions; the best is ${best?.[0] ?? ''} with ${String(best?.[1].total ?? 0)}.`,
    'the answer names the best region',
  );
  check(toolTurns === 3, 'three tool turns: search, describe, run_code');
  check(resultBytes * 5 < fileBytes, 'the model read far fewer bytes than the files hold');
} finally {
  await code.close();
  stop.abort();
  await running;
  rmSync(dir, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(
    `code-mode: ${String(failures.length)} check(s) failed:\n  ${failures.join('\n  ')}`,
  );
  process.exitCode = 1;
} else {
  console.log('code-mode: all checks passed');
}
