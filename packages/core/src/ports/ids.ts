/** Generates identifiers and secrets. Everything it returns uses only `[A-Za-z0-9]`. */
export interface IdGenerator {
  /** A unique, non-secret identifier (keys, client ids, grant ids). */
  id(): string;
  /** A high-entropy secret of at least 256 bits (43+ characters). */
  secret(): string;
}
