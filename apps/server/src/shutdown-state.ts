/**
 * Whether the server has begun to stop: set once by `RunningServer.stop()`, read by the readiness
 * probe, which then answers 503 so a load balancer sends no new requests while the requests in
 * flight finish (docs/operations.md "Shutdown").
 */
export interface ShutdownState {
  readonly stopping: boolean;
  begin(): void;
}

export function createShutdownState(): ShutdownState {
  let stopping = false;
  return {
    get stopping() {
      return stopping;
    },
    begin() {
      stopping = true;
    },
  };
}
