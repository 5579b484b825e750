import cluster from 'node:cluster';

/** Where shutdown signals come from: the process, or an emitter in tests. */
export interface SignalSource {
  once(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
  off(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
}

/** What `serve` writes to and listens on (see `serve`). */
export interface ServeIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Where the log lines go (default: `stdout`). */
  logs?: { write(text: string): unknown };
  signals?: SignalSource;
  onListening?: (info: { port: number }) => void;
}

/**
 * Resolves with the name of the first stop signal (SIGTERM, SIGINT; in a worker of `serve --workers N`,
 * its primary going away); `cancel` stops listening.
 */
export function waitForStopSignal(signals: SignalSource): { received: Promise<string>; cancel(): void } {
  let cancel = () => undefined as void;
  const received = new Promise<string>((resolveSignal) => {
    const onTerm = () => done('SIGTERM');
    const onInt = () => done('SIGINT');
    // A worker whose primary is gone (killed, say) stops as on SIGTERM rather than serve alone.
    const onDisconnect = () => done('primary gone');
    cancel = () => {
      signals.off('SIGTERM', onTerm);
      signals.off('SIGINT', onInt);
      if (cluster.isWorker) process.off('disconnect', onDisconnect);
    };
    if (cluster.isWorker) process.once('disconnect', onDisconnect);
    function done(name: string) {
      cancel();
      resolveSignal(name);
    }
    signals.once('SIGTERM', onTerm);
    signals.once('SIGINT', onInt);
  });
  return { received, cancel };
}
