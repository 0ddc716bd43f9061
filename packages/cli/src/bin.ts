#!/usr/bin/env node
import { runCli } from './cli.js';

// The first Ctrl-C or SIGTERM stops the command cleanly (servers closed, children ended); a
// second one means the user has stopped waiting. Under `pnpm start` one Ctrl-C arrives twice
// within milliseconds (from the terminal, and forwarded by pnpm): that is still the first.
const controller = new AbortController();
let firstSignalAt = 0;
const onSignal = (): void => {
  if (!controller.signal.aborted) {
    firstSignalAt = Date.now();
    controller.abort();
  } else if (Date.now() - firstSignalAt > 500) process.exit(130);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

process.exitCode = await runCli(process.argv.slice(2), { signal: controller.signal });
// Nothing is left to do; a handle a dependency forgot must not keep the process alive.
process.exit();
