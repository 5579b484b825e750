// Preloaded (node --import) into the benchmark's child processes: when the benchmark that started
// this process goes away (its IPC channel closes, e.g. it was killed), stop gracefully.
if (process.channel) {
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // The channel alone must not keep the process alive.
  process.channel.unref();
}
