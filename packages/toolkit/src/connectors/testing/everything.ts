import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `@modelcontextprotocol/server-everything` as a stdio source: a real server, started by Node. */
export const everything = {
  command: process.execPath,
  args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
};
