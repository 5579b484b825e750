import type { AttributeRepository, GrantRepository, Repositories } from '@gatehouse/core';
import { attributeValueQueries, codeExchangeQueries, codeExchangeValues, type CodeExchange, type Database } from '@gatehouse/storage-kysely';
import type { Kysely } from 'kysely';
import { runBound, type DirectExecutor, type DirectStep } from './direct-executor.js';
import type { BackgroundStatement } from './write-thread.js';

/** Rolls the exchange's synchronous transaction back: the code was already consumed, or its session ended. */
const NOT_EXCHANGED = Symbol('code consumed or its session ended');

/**
 * The shared repositories with SQLite's own form of the writes that have one
 * (docs/decisions/0162-one-exchange-write-per-dialect.md), chosen here, once:
 * - `grants.createFromCode`: on the write thread where the storage has one (a file it opened,
 *   docs/decisions/0075-code-exchange-writes-on-a-thread.md), else one synchronous transaction on
 *   the serving connection (decision 0067);
 * - `attributes.setUserValues` (with user tables): one synchronous transaction (decision 0067).
 * Each form's fallback is beside it: when the thread has stopped, the synchronous transaction;
 * when the connection is busy (a kysely transaction holds it across an `await`, or another
 * process holds the write lock and the storage waits itself, decision 0101), the shared
 * repository's kysely transaction, which waits its turn.
 */
export function withSqliteWrites(repositories: Repositories, db: Kysely<Database>, direct: DirectExecutor, { userTables }: { userTables: boolean }): Repositories {
  const grants: GrantRepository = { ...repositories.grants, createFromCode: sqliteCreateFromCode(db, direct, repositories.grants.createFromCode) };
  if (!userTables) return { ...repositories, grants };
  const attributes: AttributeRepository = { ...repositories.attributes, setUserValues: sqliteSetUserValues(db, direct, repositories.attributes.setUserValues) };
  return { ...repositories, grants, attributes };
}

function sqliteCreateFromCode(db: Kysely<Database>, direct: DirectExecutor, whenBusy: GrantRepository['createFromCode']): GrantRepository['createFromCode'] {
  /** The synchronous transaction; kysely's, which waits for the connection, when it is busy. */
  const onConnection = async (exchange: CodeExchange): Promise<boolean> => {
    let written;
    try {
      written = direct.transaction((step) => exchangeInOneStep(db, step, exchange));
    } catch (error) {
      if (error === NOT_EXCHANGED) return false;
      throw error;
    }
    return written === undefined ? whenBusy(exchange) : written.value;
  };
  if (direct.writeOnThread === undefined) return onConnection;
  // The write thread; this connection once the thread has stopped or failed.
  return async (exchange) => (await direct.writeOnThread?.(exchangeStatements(db, exchange))) ?? onConnection(exchange);
}

/**
 * `createFromCode`'s transaction body on the serving connection: the shared statements in the
 * shared order. Throws NOT_EXCHANGED (the transaction rolls back) when the code was consumed or its
 * session ended.
 */
function exchangeInOneStep(db: Kysely<Database>, step: DirectStep, exchange: CodeExchange): true {
  const { grant, consume, refreshToken } = codeExchangeValues(exchange);
  runBound(step, codeExchangeQueries.insertGrant.bind(db, { ...grant }));
  const [consumed] = runBound(step, codeExchangeQueries.consumeCode.bind(db, consume)).rows;
  if (!consumed) throw NOT_EXCHANGED;
  // Product logout outruns the codes of its session (docs/decisions/0005-codes-die-with-their-session.md);
  // the write lock, held since BEGIN IMMEDIATE, orders this read with the logout's transaction.
  if (consumed.session_id !== null && runBound(step, codeExchangeQueries.findLiveSession.bind(db, { sessionId: consumed.session_id })).rows.length === 0) throw NOT_EXCHANGED;
  if (refreshToken !== null) runBound(step, codeExchangeQueries.insertRefreshToken.bind(db, refreshToken));
  return true;
}

/**
 * `createFromCode`'s statements for the write thread, in the same order: the write is refused
 * (nothing written) when the code is consumed or its session ended, which the consume checks in
 * the same statement (the thread reads no row back between statements).
 */
function exchangeStatements(db: Kysely<Database>, exchange: CodeExchange): BackgroundStatement[] {
  const { grant, consume, refreshToken } = codeExchangeValues(exchange);
  const grantInsert = codeExchangeQueries.insertGrant.bind(db, { ...grant });
  const consumeIt = codeExchangeQueries.consumeCodeWhileSessionLive.bind(db, consume);
  const statements: BackgroundStatement[] = [
    { sql: grantInsert.sql, parameters: grantInsert.parameters, mustChange: false },
    { sql: consumeIt.sql, parameters: consumeIt.parameters, mustChange: true },
  ];
  if (refreshToken === null) return statements;
  const tokenInsert = codeExchangeQueries.insertRefreshToken.bind(db, refreshToken);
  return [...statements, { sql: tokenInsert.sql, parameters: tokenInsert.parameters, mustChange: false }];
}

function sqliteSetUserValues(db: Kysely<Database>, direct: DirectExecutor, whenBusy: AttributeRepository['setUserValues']): AttributeRepository['setUserValues'] {
  return async (accountKey, userKey, changes) => {
    if (changes.length === 0) return { unknownKeys: [] };
    const written = direct.transaction((step) => setValuesInOneStep(db, step, accountKey, userKey, changes));
    return written === undefined ? whenBusy(accountKey, userKey, changes) : written.value;
  };
}

/**
 * `setUserValues`'s transaction on the serving connection: the attribute names checked one by one
 * (each a point read in the process), then the same writes as kysely's path. The write lock, held
 * since `BEGIN IMMEDIATE`, keeps a concurrent deletion of a name out, as `dialect.lock` does on PostgreSQL.
 */
function setValuesInOneStep(
  db: Kysely<Database>,
  step: DirectStep,
  accountKey: string,
  userKey: string,
  changes: Parameters<AttributeRepository['setUserValues']>[2],
): { unknownKeys: string[] } {
  const { findAttributeKey, deleteUserValue, upsertUserValue } = attributeValueQueries;
  const unknownKeys = changes.map((change) => change.key).filter((key) => runBound(step, findAttributeKey.bind(db, { accountKey, key })).rows.length === 0);
  // All or nothing: an unknown key means no write at all.
  if (unknownKeys.length > 0) return { unknownKeys };
  for (const { key, value } of changes) {
    if (value === null) runBound(step, deleteUserValue.bind(db, { accountKey, userKey, key }));
    else runBound(step, upsertUserValue.bind(db, { accountKey, userKey, key, value }));
  }
  return { unknownKeys: [] };
}
