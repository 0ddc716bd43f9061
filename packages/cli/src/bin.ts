#!/usr/bin/env node
// A command that connects to the config's stdio servers starts them before anything else loads
// (src/prestart.ts is light): the CLI's own modules (commander, the output's table, then the
// toolkit and the SDK) load while those servers start. Other commands (`--version`) never load it.

/** The commands that run once and exit, and load zod (the toolkit, the MCP SDK) to do it. */
const ONE_SHOT = new Set([
  'tools',
  'prompts',
  'resources',
  'chain',
  'run-code',
  'search',
  'connectors',
  'auth',
  'audit',
]);

/** How long the first signal's clean stop may take before the CLI exits anyway. */
const STOP_DEADLINE_MS = 5_000;

// The first Ctrl-C, SIGTERM or hang-up stops the command cleanly (servers closed, children
// ended); a second one means the user has stopped waiting. Under `pnpm start` one Ctrl-C arrives
// twice within milliseconds (from the terminal, and forwarded by pnpm): that is still the first.
// A server or a builtin that never lets go must not keep the CLI alive: the clean stop has a
// deadline, after which the CLI exits as the signal would have ended it. The deadline runs from
// when the command can act on the signal: one that arrives while the CLI is still loading (on a
// busy machine, seconds) waits for the load, and the servers started early are then stopped
// with the whole deadline ahead. A command that says how long its stop takes (`serve --http`
// drains calls in flight first) has that long, from when it says so.
const controller = new AbortController();
let firstSignalAt = 0;
let deadlineMs = STOP_DEADLINE_MS;
let deadline: NodeJS.Timeout | undefined;
let stopCode: number | undefined;
let loaded = false;
const startDeadline = (): void => {
  clearTimeout(deadline);
  deadline = setTimeout(() => {
    process.stderr.write(`not stopped after ${deadlineMs / 1000} s; exiting\n`);
    process.exit(stopCode);
  }, deadlineMs).unref();
};
const onSignal = (signal: NodeJS.Signals): void => {
  const code = signal === 'SIGINT' ? 130 : signal === 'SIGHUP' ? 129 : 143;
  if (!controller.signal.aborted) {
    firstSignalAt = Date.now();
    stopCode = code;
    controller.abort();
    if (loaded) startDeadline();
  } else if (Date.now() - firstSignalAt > 500) process.exit(code);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const argv = process.argv.slice(2);
const early =
  argv.includes('serve') || argv.includes('tools') ? await import('./prestart.js') : undefined;
// `serve` reloads its config on SIGHUP: one sent while it still loads (its servers started below)
// is held for it, not the end of the process (Node's default) that leaves them half started.
// Only `serve` itself: another command whose line names it (`tools search serve`) ends on one.
const hangUps =
  early?.commandOf(argv) === 'serve'
    ? (await import('./reload/hang-ups.js')).holdHangUps()
    : undefined;
// Any other command ends on a hang-up (its terminal closed) as on Ctrl-C. Node's default would
// end the CLI alone, and a server that does not end with its stdin would run on, orphaned.
if (hangUps === undefined) process.on('SIGHUP', onSignal);
const prestarted = await early?.prestartServers(argv, {
  cwd: process.cwd(),
  env: process.env,
});
// A one-shot command parses a few messages with each schema (the config's, the MCP SDK's): zod's
// compiled parsers, generated on a schema's first use, cost more there than they save. A
// server (`serve`) runs long enough to gain from them.
if (!argv.includes('serve') && argv.some((word) => ONE_SHOT.has(word))) {
  (await import('zod')).config({ jitless: true });
}
const { runCli } = await import('./cli.js');
process.exitCode = await runCli(argv, {
  prestarted,
  hangUps,
  signal: controller.signal,
  onLoaded: () => {
    loaded = true;
    if (controller.signal.aborted) startDeadline();
  },
  onStopTime: (ms) => {
    deadlineMs = ms + STOP_DEADLINE_MS;
    if (deadline !== undefined) startDeadline();
  },
});
// Nothing is left to do; a handle a dependency forgot must not keep the process alive. Output
// goes first: a pipe's writes are synchronous on Linux but queued on macOS, where an exit drops
// what is still queued (a long `--json` into `jq`). A write's callback runs after those before it.
const flushed = (stream: NodeJS.WriteStream): Promise<unknown> =>
  new Promise((resolve) => stream.write('', resolve));
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit();
