/** Where a line goes: `process.stdout` for `serve`, `process.stderr` for the other commands, a buffer in tests. */
export interface LogDestination {
  write(line: string): unknown;
  /** True for a terminal (as `process.stdout.isTTY`): lines are then readable rather than JSON by default. */
  isTTY?: boolean;
}
