// Preloaded (node --import) into the benchmark's child processes: when the benchmark that started
// this process goes away (its IPC channel closes, e.g. it was killed), stop gracefully.
import cluster from 'node:cluster';

// The workers of `gatehouse serve --workers N` inherit this preload; their channel is the cluster's
// (their primary stops them), and it must stay referenced while they ask the primary for the port.
if (process.channel && !cluster.isWorker) {
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // The channel alone must not keep the process alive.
  process.channel.unref();
}
