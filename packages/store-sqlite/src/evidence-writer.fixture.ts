// A child process for the evidence store's concurrency test: opens the evidence store on `path`,
// prints "ready", waits for "go" on stdin (so two children write at the same time), then adds
// `count` terms `<prefix><i>` of one tool, of weight 2i + `offset`, each bounded to three terms
// per tool. It prints the codes of the calls that failed as one JSON line, `{"failures":[...]}`,
// and exits.
import { createSqliteEvidenceStore } from './sqlite-evidence.js';
import { readyThenGo } from './go.fixture.js';

const [path, prefix = 'w', countText = '1', offsetText = '1'] = process.argv.slice(2);
const count = Number(countText);
const offset = Number(offsetText);
const store = createSqliteEvidenceStore({ path });

await readyThenGo();

const failures: string[] = [];
for (let i = 0; i < count; i++) {
  const row = { toolId: 'fx:echo', term: `${prefix}${String(i)}`, weight: 2 * i + offset };
  try {
    await store.add([{ ...row, updatedAt: 1000 }], { halfLifeMs: 1e9, maxTermsPerTool: 3 });
  } catch (error) {
    failures.push(`${String((error as { code?: unknown }).code)}: ${(error as Error).message}`);
  }
}
process.stdout.write(`${JSON.stringify({ failures })}\n`);
store.close();
