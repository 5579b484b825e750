import { sign, type KeyObject } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { threadErrorOf, type ThreadAnswer } from './protocol.js';

/**
 * The signing thread's worker (docs/decisions/0076-signing-on-a-thread.md): keys arrive once each,
 * as `KeyObject`s with a number; each job names its key's number and the JWS signing input (RFC 7515
 * §5.1), and is answered with the ES256 signature (RFC 7518 §3.4: R ‖ S), base64url.
 */
export type SigningMessage = [newKeys: Array<[number, KeyObject]>, jobs: Array<[id: number, job: SigningJob]>];

/** A key's number and the signing input. */
export type SigningJob = [keyNumber: number, signingInput: string];

const keys = new Map<number, KeyObject>();

parentPort?.on('message', ([newKeys, jobs]: SigningMessage) => {
  for (const [number, key] of newKeys) keys.set(number, key);
  const answers: Array<ThreadAnswer<string>> = jobs.map(([id, [number, signingInput]]) => {
    try {
      const signature = sign('sha256', Buffer.from(signingInput, 'ascii'), { key: keys.get(number) as KeyObject, dsaEncoding: 'ieee-p1363' });
      return [id, signature.toString('base64url'), null];
    } catch (error) {
      return [id, null, threadErrorOf(error)];
    }
  });
  parentPort?.postMessage(answers);
});
