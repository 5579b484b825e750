/**
 * Times are stored as integer epoch milliseconds (exactly what a `Date` holds), lists and JWKs
 * as JSON text: the same encoding on SQLite and PostgreSQL (docs/decisions/0012-time-and-list-encoding.md).
 */
export const toMs = (date: Date): number => date.getTime();

export const toMsOrNull = (date: Date | null): number | null => (date === null ? null : date.getTime());

/** PostgreSQL's int8 arrives as a number (the pool parses it); `Number` also accepts a numeric string. */
export const fromMs = (ms: number | string): Date => new Date(Number(ms));

export const fromMsOrNull = (ms: number | string | null): Date | null => (ms === null ? null : fromMs(ms));

export const toJson = (value: unknown): string => JSON.stringify(value);

export function fromJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

/** Case-insensitive uniqueness key, the same fold the in-memory repositories use. */
export const fold = (text: string): string => text.toLowerCase();

export const toFlag = (value: boolean): number => (value ? 1 : 0);

/** Rows changed by an UPDATE/DELETE result (kysely reports a bigint). */
export const changed = (count: bigint | undefined): boolean => (count ?? 0n) > 0n;

/** Rows an UPDATE/DELETE changed, as a number. */
export const affected = (count: bigint | undefined): number => Number(count ?? 0n);

/** An optional list field (`resources`, `resourceServerFor`): stored as a JSON list, `[]` when absent. */
export const toOptionalListJson = (list: readonly string[] | undefined): string => JSON.stringify(list ?? []);

/** The field of an optional list column: absent when the list is empty. */
export function optionalList<K extends string>(key: K, text: string): { [P in K]?: string[] } {
  const list = fromJson<string[]>(text);
  return (list.length === 0 ? {} : { [key]: list }) as { [P in K]?: string[] };
}

/** The stored form of an OpenID Connect sign-in (`openid` of codes and grants): the time in epoch milliseconds. */
interface OpenIdJson {
  authTime: number;
  amr?: string[];
  acr?: string;
  nonce?: string;
}

/** A code's or grant's `openid` as JSON text, null when absent (an OAuth code or grant). */
export function toOpenIdJson(openid: { authTime: Date; amr?: string[]; acr?: string; nonce?: string } | undefined): string | null {
  if (openid === undefined) return null;
  const { authTime, ...rest } = openid;
  return JSON.stringify({ authTime: authTime.getTime(), ...rest } satisfies OpenIdJson);
}

/** The `openid` field of a stored code or grant: absent when the column is null. */
export function openIdField(text: string | null): { openid?: { authTime: Date; amr?: string[]; acr?: string; nonce?: string } } {
  if (text === null) return {};
  const { authTime, ...rest } = fromJson<OpenIdJson>(text);
  return { openid: { authTime: new Date(authTime), ...rest } };
}
