import { KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { es256Signature, type Es256Signer } from '@gatehouse/core';

type CryptoKey = Parameters<Es256Signer['sign']>[1];

// A CommonJS script (worker `eval`). In: [new keys as [number, KeyObject], jobs as [id, key number,
// signing input]]. Out: one array of [id, base64url signature or null, error message or null] per message.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { sign } = require('node:crypto');
const keys = new Map();
parentPort.on('message', ([newKeys, jobs]) => {
  for (const [number, key] of newKeys) keys.set(number, key);
  const answers = [];
  for (const [id, number, signingInput] of jobs) {
    try {
      const signature = sign('sha256', Buffer.from(signingInput, 'ascii'), { key: keys.get(number), dsaEncoding: 'ieee-p1363' });
      answers.push([id, signature.toString('base64url'), null]);
    } catch (error) {
      answers.push([id, null, String(error && error.message)]);
    }
  }
  parentPort.postMessage(answers);
});
`;

/** An `Es256Signer` on a worker thread; `stop` ends the thread (later signatures are made on the calling thread). */
export interface SigningThread extends Es256Signer {
  stop(): Promise<void>;
}

/**
 * Signs on a worker thread (docs/decisions/0076-signing-on-a-thread.md): the event loop sends the
 * signing inputs of one turn in one message and reads one answer, while the thread computes the
 * P-256 signatures. A private key crosses to the thread once, as a `KeyObject`. If the thread fails,
 * signatures are made on the calling thread. The thread does not keep the process alive.
 *
 * @example
 * const gatehouse = createGatehouse({ repositories, settings, clock, signer: startSigningThread() });
 */
export function startSigningThread(): SigningThread {
  let worker: Worker | undefined;
  let failed = false;
  const pending = new Map<number, { resolve: (signature: string) => void; reject: (error: Error) => void; signingInput: string; key: CryptoKey }>();
  const keyNumbers = new WeakMap<CryptoKey, number>();
  let keysSent = 0;
  let nextId = 0;
  let newKeys: Array<[number, KeyObject]> = [];
  let jobs: Array<[number, number, string]> = [];
  // Called once no signature is in flight (stop waits for it).
  let drained: (() => void) | undefined;

  const signHere = (signingInput: string, key: CryptoKey) => es256Signature(signingInput, key);

  // A failed thread's signatures in flight are made here instead.
  const fail = () => {
    failed = true;
    for (const [id, job] of pending) {
      pending.delete(id);
      try {
        job.resolve(signHere(job.signingInput, job.key));
      } catch (error) {
        job.reject(error as Error);
      }
    }
    drained?.();
  };

  const start = (): Worker => {
    const started = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 } });
    started.unref();
    started.on('message', (answers: Array<[number, string | null, string | null]>) => {
      for (const [id, signature, error] of answers) {
        const job = pending.get(id);
        if (job === undefined) continue;
        pending.delete(id);
        if (signature !== null) job.resolve(signature);
        else job.reject(new Error(`The signing thread could not sign: ${error ?? 'unknown error'}`));
      }
      if (pending.size === 0) {
        started.unref();
        drained?.();
      }
    });
    started.on('error', fail);
    started.once('exit', fail);
    return started;
  };

  const send = () => {
    if (jobs.length === 0) return;
    const message = [newKeys, jobs];
    newKeys = [];
    jobs = [];
    worker?.postMessage(message);
  };

  let stopped: Promise<void> | undefined;
  return {
    sign(signingInput, key) {
      if (failed || stopped !== undefined) return signHere(signingInput, key);
      worker ??= start();
      let number = keyNumbers.get(key);
      if (number === undefined) {
        keyNumbers.set(key, (number = keysSent++));
        newKeys.push([number, KeyObject.from(key as Parameters<typeof KeyObject.from>[0])]);
      }
      const id = nextId++;
      if (pending.size === 0) worker.ref();
      // The signatures asked for during one turn of the event loop go in one message.
      if (jobs.length === 0) setImmediate(send);
      jobs.push([id, number, signingInput]);
      return new Promise<string>((resolve, reject) => pending.set(id, { resolve, reject, signingInput, key }));
    },
    stop() {
      stopped ??= (async () => {
        send();
        // Answers in flight arrive before the thread is ended (for 5 s at most); what remains is
        // signed here when the thread exits.
        if (pending.size > 0 && !failed) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([new Promise<void>((resolve) => (drained = resolve)), new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
          clearTimeout(timer);
        }
        await worker?.terminate();
      })();
      return stopped;
    },
  };
}

let shared: SigningThread | undefined;

/**
 * One signing thread for the whole process, started at the first signature: what a server gives
 * its gatehouse (or each of several: one per tenant, or per test).
 *
 * @example
 * const gatehouse = createGatehouse({ repositories, settings, clock, signer: sharedSigningThread() });
 */
export function sharedSigningThread(): Es256Signer {
  return (shared ??= startSigningThread());
}
