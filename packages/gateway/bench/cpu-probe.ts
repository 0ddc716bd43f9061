// Preloaded (`--import`) into each process in the middle of the CPU benchmark: on SIGUSR2 it
// writes the process's CPU time so far (user + system, all threads, µs) to stderr as one
// `CPU <µs>` line, so the benchmark reads the middle process's own process.cpuUsage().
process.on('SIGUSR2', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`CPU ${user + system}\n`);
});
