import type { ListenAddress } from './listen-address.js';

/** A listening adapter (uWS or node:http). */
export interface HttpServer {
  /** The bound address; for `port: 0` the port the system chose. */
  readonly address: ListenAddress;
  /**
   * Stop accepting, give open responses up to `graceMs` to finish, then cut the rest (live
   * sessions see their abort), and unlink a unix socket file.
   */
  close(graceMs?: number): Promise<void>;
}

export const DEFAULT_CLOSE_GRACE_MS = 5_000;
