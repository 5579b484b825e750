/**
 * The only source of time for the core. The core never reads the system time itself:
 * the composition root passes one that reads the system clock, tests a controllable one.
 */
export interface Clock {
  now(): Date;
}
