import { defineConfig } from 'vitest/config';

// Tests run against source: the custom condition points every workspace export at src/. No
// 'import' here: these reach the workers as Node --conditions, and a CommonJS package (pg) that
// requires a dual-format one (pg-pool) would be handed its ESM wrapper.
const conditions = ['@toolplane/source', 'node', 'default'];

// Two tiers. `pnpm test` runs what a change needs: unit tests and integration tests against real
// servers (the `parallel` and `serial` projects). `pnpm test:e2e` runs `*.e2e.test.ts`: fleets
// behind HAProxy, third-party clients, the Inspector, the conformance suites, kill tests.
const sources = ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts'];
const e2e = ['packages/*/src/**/*.e2e.test.ts', 'examples/*/src/**/*.e2e.test.ts'];

// Files that replace a module (vi.mock) for their own run: they get a module registry of their
// own, as the parallel project's workers share theirs between files.
const isolated = [
  'packages/toolmodel/src/validator-cache.test.ts',
  'packages/codemode/src/quickjs-compile-failure.test.ts',
];
// End-to-end files that start whole fleets of processes, likewise.
const e2eSerial = [
  'packages/cli/src/fleet.e2e.test.ts',
  'packages/cli/src/fleet-failures.e2e.test.ts',
  'examples/fleet/src/**/*.e2e.test.ts',
];

// Vitest's default is one worker per core less one: a single worker on CI's two cores. Most of a
// file's time is spent waiting on the servers and children it starts, so more workers overlap
// those waits. Beside two CPU hogs, on the same tree and the same day: six workers 229 and 228 s,
// five 250, 252 and 254 s (five had measured 221 s a session before, four 246 s); a later tree,
// alternating, eight 239, 237 and 237 s, six 240, 240 and 251 s. TEST_WORKERS overrides.
const workers = Number(process.env.TEST_WORKERS ?? 8);
// The e2e tier ran on vitest's single worker: its files one after another, 264 s of file time
// (155 s of it the tarball test, mostly npm and tsc) in a 284 s run beside two CPU hogs. A second
// worker runs the other files beside the tarball test. Since its npm install stopped compiling
// SQLite, the two workers' shares are about level beside two hogs (the tarball test 160 s, the
// other files 155 s); more workers would only share the same two cores (TEST_E2E_WORKERS
// overrides).
const e2eWorkers = Number(process.env.TEST_E2E_WORKERS ?? 2);

const report = process.env.TEST_REPORT ?? '.ci/out/vitest.json';

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    // Transformed modules are kept on disk (node_modules/.experimental-vitest-cache, keyed by
    // each file's content and the config) and read back by the next run instead of transformed
    // again: a loop's second run, and in CI the e2e tier after `pnpm test`. TEST_FS_CACHE=0 turns
    // it off.
    experimental: { fsModuleCache: process.env.TEST_FS_CACHE !== '0' },
    // A limit for a test that hangs, not a measure of speed: a test of 2 s alone took over 20 s
    // in a CI run on a slow 2-core machine beside two CPU hogs, eight workers sharing the cores.
    // A test sets a limit of its own only to go above this one.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every TypeScript entry a test starts as a child is bundled once, before the first file.
    globalSetup: ['packages/test-support/src/global-setup.ts'],
    // Property tests run a fixed seed unless TEST_FUZZ=1 (`pnpm test:fuzz`).
    setupFiles: ['packages/test-support/src/property-seed.ts'],
    // In CI a JSON report is written too; .ci/run prints the pass/fail line from it.
    reporters: process.env.CI ? ['default', ['json', { outputFile: report }]] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: sources,
          maxWorkers: workers,
          // A worker keeps the modules it has loaded for its next file: loading the workspace's
          // sources anew for every file was about half of the run's worker time. Every file
          // stops what it starts, so what it leaves behind is only warm modules (TEST_ISOLATE=1
          // gives each file fresh ones, to tell a leak between files from a failure of its own).
          isolate: process.env.TEST_ISOLATE === '1',
          exclude: [...isolated, ...e2e, '**/node_modules/**'],
          typecheck: { enabled: true, include: ['packages/*/src/**/*.test-d.ts'] },
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: isolated,
          // Beside the parallel project, so the same (vitest requires it of one group).
          maxWorkers: workers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: e2e,
          maxWorkers: e2eWorkers,
          exclude: [...e2eSerial, '**/node_modules/**'],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e-serial',
          include: e2eSerial,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
