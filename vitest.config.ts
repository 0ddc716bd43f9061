import { defineConfig } from 'vitest/config';

// Tests run against source: the custom condition points every workspace export at src/. No
// 'import' here: these reach the workers as Node --conditions, and a CommonJS package (pg) that
// requires a dual-format one (pg-pool) would be handed its ESM wrapper.
const conditions = ['@toolplane/source', 'node', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts'],
    typecheck: { enabled: true, include: ['packages/*/src/**/*.test-d.ts'] },
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // In CI a JSON report is written too; .ci/run prints the pass/fail line from it.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: '.ci/out/vitest.json' }]]
      : ['default'],
  },
});
