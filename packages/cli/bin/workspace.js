// `pnpm toolplane …` at the repository root. pnpm runs a script in the folder of its
// package.json, but the paths a user types (`--config ./mine.yaml`) are relative to the folder
// they ran pnpm in, which pnpm passes as INIT_CWD.
import process from 'node:process';

const from = process.env.INIT_CWD;
if (from !== undefined && from !== '') process.chdir(from);
await import('./toolplane.js');
