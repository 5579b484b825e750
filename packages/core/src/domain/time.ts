/** `date` moved `seconds` later (or earlier, for a negative count). */
export function secondsAfter(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}

/** RFC 7519 §2 NumericDate: whole seconds since the epoch. */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
