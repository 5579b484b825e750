/**
 * A deep copy of a record (plain objects, arrays, Dates) made in the caller's realm.
 * Not `structuredClone`: under Jest the test code runs in its own VM context while
 * `structuredClone` is the host's, so the Dates it returns fail `instanceof Date`.
 */
export function copyRecord<T>(value: T): T {
  if (Object.prototype.toString.call(value) === '[object Date]') return new Date((value as unknown as Date).getTime()) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => copyRecord(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyRecord(item)])) as T;
  }
  return value;
}
