import { KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { Es256Signer } from '../ports/services.js';
import { es256Signature } from '../tokens/jws.js';
import type { SigningJob, SigningMessage } from './signing-worker.js';
import { createThreadCalls } from './thread-calls.js';
import { workerModule } from './worker-module.js';

type CryptoKey = Parameters<Es256Signer['sign']>[1];

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
  const keyNumbers = new WeakMap<CryptoKey, number>();
  const keysOfNumbers = new Map<number, CryptoKey>();
  let newKeys: Array<[number, KeyObject]> = [];

  const signHere = ([number, signingInput]: SigningJob) => es256Signature(signingInput, keysOfNumbers.get(number) as CryptoKey);
  const calls = createThreadCalls<SigningJob, string>({
    post: (jobs) => {
      const message: SigningMessage = [newKeys, jobs];
      newKeys = [];
      worker?.postMessage(message);
    },
    ref: () => worker?.ref(),
    unref: () => worker?.unref(),
  });
  // A failed thread's signatures in flight are made here instead, and so is every later one.
  const fail = () => {
    failed = true;
    calls.fail(new Error('The signing thread stopped.'), signHere);
  };

  const start = (): Worker => {
    const { url, argv, execArgv } = workerModule(import.meta.url, 'signing-worker');
    const started = new Worker(url, { argv, execArgv, resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 } });
    started.unref();
    started.on('message', (answers) => calls.settle(answers, (error) => new Error(`The signing thread could not sign: ${error.message}`)));
    started.on('error', fail);
    started.once('exit', fail);
    return started;
  };

  let stopped: Promise<void> | undefined;
  return {
    sign(signingInput, key) {
      if (failed || stopped !== undefined) return es256Signature(signingInput, key);
      worker ??= start();
      let number = keyNumbers.get(key);
      if (number === undefined) {
        keyNumbers.set(key, (number = keysOfNumbers.size));
        keysOfNumbers.set(number, key);
        newKeys.push([number, KeyObject.from(key as Parameters<typeof KeyObject.from>[0])]);
      }
      return calls.call([number, signingInput]);
    },
    stop() {
      stopped ??= (async () => {
        calls.flush();
        // Answers in flight arrive before the thread is ended (for 5 s at most); what remains is
        // signed here when the thread exits.
        if (calls.inFlight > 0 && !failed) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([calls.drained(), new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
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
