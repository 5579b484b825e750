// @gatehouse/core/threads: the core's ports on Node.js worker threads, and the protocol
// storage-sqlite's threads share with them (docs/decisions/0160-typed-worker-modules.md).
export { startSigningThread, sharedSigningThread, type SigningThread } from './signing-thread.js';
export { createThreadCalls, type ThreadCalls, type ThreadCallsOptions } from './thread-calls.js';
export { threadErrorOf, type ThreadAnswer, type ThreadError } from './protocol.js';
export { workerModule } from './worker-module.js';
