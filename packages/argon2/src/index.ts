// @gatehouse/argon2: argon2id password hashing for @gatehouse/core (docs/decisions/0170-argon2id-passwords.md).
export { createArgon2PasswordHasher, DEFAULT_ARGON2_PARAMETERS, type Argon2HasherOptions, type Argon2Parameters } from './argon2-hasher.js';
