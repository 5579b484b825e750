export { createMemoryRepositories } from './memory-repositories.js';
export { createControllableClock, type ControllableClock } from './clock.js';
export {
  createSequentialIds,
  createFastPasswordHasher,
  createRecordingAuditLog,
  createRecordingTransport,
  type RecordingAuditLog,
  type RecordingTransport,
} from './doubles.js';
export { createTestGatehouse, s256Challenge, type TestGatehouse } from './fixtures.js';
