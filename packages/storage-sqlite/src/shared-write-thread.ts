import { localWriteThread, writeThreadOptions, type WriteThreadEvents, type WriteThreadLink } from './write-thread.js';
import { SERVING_CONNECTION_AUTOCHECKPOINT_PAGES } from './background-checkpoints.js';
import { DEFAULT_BUSY_TIMEOUT_MS } from './deadline.js';
import type { Write, WriteAnswer, WriteMessage, WriteStep } from './write-worker.js';

/**
 * One write thread for several processes serving one SQLite file (`gatehouse serve --workers N`,
 * docs/decisions/0173-one-write-thread-for-all-workers.md). Each process's code exchanges cross to
 * the one thread, which commits them together on one connection: the processes no longer hand
 * SQLite's write lock to each other for every group, which cost each group a reload of the pages
 * the other processes had changed (on 16 cores, 8 workers exchanged codes no faster than one).
 */

/** What a process that uses the shared thread answers with: the thread's answers, or why it failed. */
export type SharedWriteThreadReply = WriteAnswer[] | { failed: string };

/**
 * How a process reaches the shared write thread in another process (an IPC channel: the cluster's
 * between a worker and its primary). One storage per channel: the answers are that storage's.
 */
export interface SharedWriteThreadChannel {
  /** Sends one message to the host (`SharedWriteThreadHost.receive` there). */
  send(message: string): void;
  /** Registers the listener of the host's replies; returns what unregisters it. */
  listen(listener: (reply: SharedWriteThreadReply) => void): () => void;
}

/** The host of the shared write thread, in the process that serves none of the writes itself. */
export interface SharedWriteThreadHost {
  /**
   * Hands on a message `peer` sent through its channel; `reply` carries the answers back to it.
   * `peer` names one process: a restarted worker is another peer.
   */
  receive(peer: number | string, message: string, reply: (reply: SharedWriteThreadReply) => void): void;
  /** A peer that is gone: its statement numbers are forgotten and the answers still due to it dropped. */
  forget(peer: number | string): void;
  /** Ends the thread once the writes in flight are answered. */
  stop(): Promise<void>;
}

/** The file the shared thread writes, with the settings of the storages that use it (`openSqliteStorage`'s). */
export interface SharedWriteThreadOptions {
  filename: string;
  /** As the storages' `busyTimeoutMs` (default 5000 ms). */
  busyTimeoutMs?: number;
  synchronous?: 'NORMAL' | 'FULL';
}

interface Peer {
  /** The peer's statement numbers → the thread's. */
  numbers: Map<number, number>;
  reply: (reply: SharedWriteThreadReply) => void;
}

/**
 * Starts hosting the shared write thread of `filename` (at the first write it receives). Every
 * peer numbers its statements and writes its own way; the host renumbers them for the thread (a
 * statement's SQL is defined there once for all peers) and sends each answer back to its peer.
 *
 * @example
 * const host = hostSharedWriteThread({ filename: '/var/lib/gatehouse/gatehouse.db' });
 * cluster.on('message', (worker, message) => host.receive(worker.id, message.writes, (reply) => worker.send({ replies: reply })));
 * cluster.on('exit', (worker) => host.forget(worker.id));
 */
export function hostSharedWriteThread(options: SharedWriteThreadOptions): SharedWriteThreadHost {
  // One of the processes runs the background checkpoints (decision 0171); this connection
  // checkpoints only past the WAL's bound, as theirs do.
  const threadOptions = writeThreadOptions(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, options.synchronous ?? 'NORMAL', SERVING_CONNECTION_AUTOCHECKPOINT_PAGES);
  const statementNumbers = new Map<string, number>();
  const peers = new Map<number | string, Peer>();
  const inFlight = new Map<number, { peer: number | string; id: number }>();
  let nextId = 0;
  let failure: string | undefined;
  let link: WriteThreadLink | undefined;
  let drainedWaiters: Array<() => void> = [];
  const afterAnswers = (): void => {
    if (inFlight.size > 0) return;
    link?.unref();
    const waiters = drainedWaiters;
    drainedWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const events: WriteThreadEvents = {
    answers(answers) {
      const byPeer = new Map<Peer, WriteAnswer[]>();
      for (const [id, result, error] of answers) {
        const write = inFlight.get(id);
        if (write === undefined) continue;
        inFlight.delete(id);
        const peer = peers.get(write.peer);
        if (peer === undefined) continue;
        let replies = byPeer.get(peer);
        if (replies === undefined) byPeer.set(peer, (replies = []));
        replies.push([write.id, result, error]);
      }
      for (const [peer, replies] of byPeer) peer.reply(replies);
      afterAnswers();
    },
    failed(error) {
      failure ??= error.message;
      // Each peer fails its writes in flight and writes on its own connection from now on.
      for (const peer of peers.values()) peer.reply({ failed: failure });
      inFlight.clear();
      afterAnswers();
    },
  };

  return {
    receive(peerKey, message, reply) {
      if (failure !== undefined) {
        reply({ failed: failure });
        return;
      }
      let peer = peers.get(peerKey);
      if (peer === undefined) peers.set(peerKey, (peer = { numbers: new Map(), reply }));
      const [definitions, writes] = JSON.parse(message) as WriteMessage;
      const newDefinitions: Array<[number, string]> = [];
      for (const [number, sql] of definitions) {
        let shared = statementNumbers.get(sql);
        if (shared === undefined) {
          statementNumbers.set(sql, (shared = statementNumbers.size));
          newDefinitions.push([shared, sql]);
        }
        peer.numbers.set(number, shared);
      }
      const { numbers } = peer;
      const renumbered = writes.map(([id, steps, deadline]): Write => {
        const sharedId = nextId++;
        inFlight.set(sharedId, { peer: peerKey, id });
        // A number the peer never defined stays unknown to the thread, which fails that write.
        return [sharedId, steps.map(([number, parameters, mustChange]): WriteStep => [numbers.get(number) ?? -1, parameters, mustChange]), deadline];
      });
      link ??= localWriteThread(options.filename, threadOptions, events);
      link.ref();
      link.post(JSON.stringify([newDefinitions, renumbered] satisfies WriteMessage));
    },
    forget(peerKey) {
      peers.delete(peerKey);
      for (const [id, write] of inFlight) if (write.peer === peerKey) inFlight.delete(id);
      afterAnswers();
    },
    async stop() {
      if (link === undefined) return;
      const drained = inFlight.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => drainedWaiters.push(resolve));
      await link.stop(drained);
    },
  };
}

/**
 * The link of a storage to the shared write thread over `channel` (`openSqliteStorage`'s
 * `writeThread: { shared: channel }`): what it sends is what a thread of its own would get.
 */
export function sharedWriteThreadLink(channel: SharedWriteThreadChannel, events: WriteThreadEvents): WriteThreadLink {
  const unlisten = channel.listen((reply) => {
    if (Array.isArray(reply)) events.answers(reply);
    else events.failed(new Error(`The shared SQLite write thread failed: ${reply.failed}`));
  });
  return {
    post: (message) => channel.send(message),
    // The channel is the process's own (the cluster's IPC), kept or let go by its owner.
    ref: () => undefined,
    unref: () => undefined,
    async stop(drained) {
      // The writes in flight are answered first, or given up after the bound a thread's stop has.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
      clearTimeout(timer);
      unlisten();
    },
  };
}
