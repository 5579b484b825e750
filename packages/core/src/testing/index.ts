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
export {
  createTestGatehouse,
  createMemoryUserDirectory,
  s256Challenge,
  type TestGatehouse,
  type TestAuthorizationInput,
  type TestAuthorizationCode,
  type MemoryUserDirectory,
} from './fixtures.js';
export {
  describeRepositoryContract,
  describeOAuthRepositoryContract,
  describeProductRepositoryContract,
  type ContractSubject,
  type ContractRunner,
  type ContractMatchers,
  type OAuthContractRepositories,
  type ProductContractRepositories,
} from './contract.js';
