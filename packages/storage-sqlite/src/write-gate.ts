import { clockMs } from './deadline.js';

/**
 * Orders the writes of one database file's two writing connections in this process: the serving
 * connection, on the event loop, and the write thread's (write-thread.ts). better-sqlite3 waits for
 * SQLite's write lock by blocking its thread, so the serving connection must never start a write
 * while the thread holds, or is about to take, that lock (docs/decisions/0075-code-exchange-writes-on-a-thread.md).
 *
 * Any number of writes may be handed to the thread at once (it runs them one after the other);
 * a write of the serving connection waits until none is in flight, and while it waits or holds
 * the gate, new writes for the thread wait behind it (neither side starves the other).
 */
export class WriteGate {
  /** Writes handed to the thread and not answered yet. */
  #inThread = 0;
  #servingHolds = false;
  readonly #servingWaiting: Array<() => void> = [];
  readonly #threadWaiting: Array<() => void> = [];

  /** Writes waiting for the gate now (the serving connection's and the thread's). */
  get waiting(): number {
    return this.#servingWaiting.length + this.#threadWaiting.length;
  }

  /** Writes handed to the thread and not answered yet. */
  get inThread(): number {
    return this.#inThread;
  }

  /** Admits a write for the thread; resolves at once unless the serving connection holds or waits for the gate. */
  enterThread(): Promise<void> | undefined {
    if (!this.#servingHolds && this.#servingWaiting.length === 0) {
      this.#inThread += 1;
      return undefined;
    }
    return new Promise<void>((resolve) =>
      this.#threadWaiting.push(() => {
        this.#inThread += 1;
        resolve();
      }),
    );
  }

  /** The thread answered a write. */
  leaveThread(): void {
    this.#inThread -= 1;
    if (this.#inThread === 0) this.#admitServing();
  }

  /** Takes the gate for the serving connection if no write is in the thread and nobody holds it; false otherwise. */
  tryEnterServing(): boolean {
    if (this.#servingHolds || this.#inThread > 0 || this.#servingWaiting.length > 0) return false;
    this.#servingHolds = true;
    return true;
  }

  /**
   * Takes the gate for the serving connection once the thread has answered every write in flight:
   * true once held. With a `deadline` (`clockMs()` time), a write still waiting then gives up
   * (false), and the thread's writes it kept waiting go ahead.
   */
  enterServing(deadline?: number): Promise<boolean> {
    if (this.tryEnterServing()) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const admit = () => {
        if (timer !== undefined) clearTimeout(timer);
        resolve(true);
      };
      this.#servingWaiting.push(admit);
      if (deadline !== undefined) {
        timer = setTimeout(() => {
          const index = this.#servingWaiting.indexOf(admit);
          if (index < 0) return;
          this.#servingWaiting.splice(index, 1);
          if (!this.#servingHolds && this.#servingWaiting.length === 0) this.#admitThreadWrites();
          resolve(false);
        }, Math.max(0, deadline - clockMs()));
      }
    });
  }

  leaveServing(): void {
    this.#servingHolds = false;
    // Writes for the thread that queued behind this one go first, then the next serving write.
    this.#admitThreadWrites();
    if (this.#inThread === 0) this.#admitServing();
  }

  #admitThreadWrites(): void {
    const waiting = this.#threadWaiting.splice(0);
    for (const admit of waiting) admit();
  }

  #admitServing(): void {
    if (this.#servingHolds) return;
    const next = this.#servingWaiting.shift();
    if (next === undefined) return;
    this.#servingHolds = true;
    next();
  }
}
