import { defineConfig } from 'vitest/config';

// Tests run against source: the custom condition points every workspace export at src/. No
// 'import' here: these reach the workers as Node --conditions, and a CommonJS package (pg) that
// requires a dual-format one (pg-pool) would be handed its ESM wrapper.
const conditions = ['@toolplane/source', 'node', 'default'];

// Files that start whole fleets of processes, or time process trees, run after everything else
// and one at a time: on CI's two cores, next to the other files, their clocks are not theirs.
const serial = [
  'packages/cli/src/fleet.test.ts',
  'examples/fleet/src/**/*.test.ts',
  'packages/toolkit/src/connectors/transport/stdio-client-transport.test.ts',
];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // In CI a JSON report is written too; .ci/run prints the pass/fail line from it.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: '.ci/out/vitest.json' }]]
      : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts'],
          exclude: [...serial, '**/node_modules/**'],
          typecheck: { enabled: true, include: ['packages/*/src/**/*.test-d.ts'] },
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'serial',
          include: serial,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
