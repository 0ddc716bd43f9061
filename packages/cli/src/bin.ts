#!/usr/bin/env node
import { runCli } from './cli.js';

// The first Ctrl-C or SIGTERM stops the command cleanly (servers closed, children ended); a
// second one means the user has stopped waiting.
const controller = new AbortController();
const onSignal = (): void => {
  if (controller.signal.aborted) process.exit(130);
  controller.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

process.exitCode = await runCli(process.argv.slice(2), { signal: controller.signal });
// Nothing is left to do; a handle a dependency forgot must not keep the process alive.
process.exit();
