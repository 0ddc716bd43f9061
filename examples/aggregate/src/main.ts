/**
 * One surface over two sources: a builtin tool defined with zod, and the reference MCP server
 * (`@modelcontextprotocol/server-everything`) as a real stdio child. The story an agent follows:
 * search the catalogue, describe the best hit, call it, with progress. It checks its own output
 * and exits non-zero on a mismatch, so CI runs it as a test.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createToolkit, defineTool, timeout, ToolError } from '@toolplane/toolkit';
import { z } from 'zod';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

const toolkit = createToolkit({
  tools: [
    defineTool({
      name: 'word_count',
      description: 'Count the words and characters in a piece of text.',
      input: z.object({ text: z.string() }),
      output: z.object({ words: z.number(), characters: z.number() }),
      annotations: { readOnlyHint: true },
      run: ({ text }) => ({
        words: text.split(/\s+/).filter(Boolean).length,
        characters: text.length,
      }),
    }),
  ],
  middleware: [timeout(30_000)],
});
const namespace = toolkit.addConnector({ command: process.execPath, args: [everything, 'stdio'] });

const controller = new AbortController();
const running = toolkit.run({ signal: controller.signal });
try {
  await toolkit.ready();
  const [status] = toolkit.connectors();
  console.log(
    `connected ${namespace}: ${status?.state ?? 'unknown'}, ${toolkit.index.size} tools in all`,
  );
  assert.equal(status?.state, 'connected');

  // 1. Search: summaries only, no schemas, so a model can afford to look.
  const { results } = await toolkit.search('add two numbers together', { limit: 3 });
  console.log(`search "add two numbers together": ${results.map((r) => r.id).join(', ')}`);
  const best = results[0];
  assert.ok(best !== undefined);
  assert.equal(best.id, `${namespace}:get-sum`);

  // 2. Describe: the full definition of the chosen tool.
  const described = await toolkit.lookup(best.id);
  assert.equal(described.type, 'tool');
  console.log(
    `describe ${best.id}: ${Object.keys(described.tool.inputSchema.properties ?? {}).join(', ')}`,
  );

  // 3. Call it, and the builtin, through the same runner.
  const sum = await toolkit.callTool(best.id, { a: 2, b: 40 });
  console.log(`call ${best.id} {a: 2, b: 40} → ${JSON.stringify(sum.structured)}`);
  const counted = await toolkit.call('word_count', { text: 'define once, run anywhere' });
  console.log(`call word_count → ${JSON.stringify(JSON.parse(counted?.text ?? 'null'))}`);
  assert.deepEqual(JSON.parse(counted?.text ?? ''), { words: 4, characters: 25 });

  // 4. Progress from the upstream server reaches the caller.
  const progress: number[] = [];
  await toolkit.callTool(
    `${namespace}:trigger-long-running-operation`,
    { duration: 0.3, steps: 3 },
    { onProgress: (event) => progress.push(event.progress) },
  );
  console.log(`long-running operation reported progress ${progress.join(', ')}`);
  assert.deepEqual(progress, [1, 2, 3]);

  // 5. Bad arguments are typed errors that say which argument.
  try {
    await toolkit.call('word_count', { text: 42 });
    assert.fail('bad arguments were accepted');
  } catch (error) {
    assert.ok(ToolError.isInstance(error));
    console.log(`bad arguments → ${error.code} at ${error.errors?.[0]?.path ?? '?'}`);
    assert.equal(error.code, 'validation');
  }
  console.log('aggregate: all checks passed');
} finally {
  controller.abort();
  await running;
}
