// A child process for the durability and concurrency tests: writes `count` prompts named
// `<prefix>-<i>`, reports "written <count>" on stdout once every write has resolved, then either
// closes and exits or (with "hold") waits to be killed. A fifth argument picks `synchronous`.
import { createSqliteStore } from './sqlite-store.js';

const [path, prefix = 'p', countText = '1', mode = 'exit', sync = 'full'] = process.argv.slice(2);
const count = Number(countText);
const store = createSqliteStore({ path, synchronous: sync === 'normal' ? 'normal' : 'full' });
for (let i = 0; i < count; i++) {
  await store.putPrompt({ name: `${prefix}-${i}`, template: `written by ${prefix}` });
}
process.stdout.write(`written ${count}\n`);
if (mode === 'hold') {
  setInterval(() => undefined, 60_000);
} else {
  await store.close();
}
