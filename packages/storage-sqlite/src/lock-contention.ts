/**
 * Whether another connection (the CLI, another process) is known to hold a database file's write
 * lock: set when a write of this process waited its whole busy timeout for it in vain, cleared by
 * the next write that goes through. While it is set, a write that meets the lock fails at once
 * instead of waiting the timeout out again, so that no request waits longer than the timeout in
 * all, however many wait before it or however many writes it makes
 * (docs/decisions/0101-bounded-sqlite-lock-waits.md). Writes still try, so the first one after the
 * lock is given back goes through.
 */
export class LockContention {
  #latched = false;

  /** True while the lock is known to be held elsewhere. */
  get latched(): boolean {
    return this.#latched;
  }

  /** A write waited its whole busy timeout for the lock. */
  met(): void {
    this.#latched = true;
  }

  /** A write went through: the lock is free again. */
  cleared(): void {
    if (this.#latched) this.#latched = false;
  }
}
