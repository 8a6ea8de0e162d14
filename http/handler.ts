/** The server-neutral request/response interface every adapter implements and every handler uses. */

export interface Req {
  /** Upper-case method. */
  readonly method: string;
  /** Raw (percent-encoded) path without the query string. */
  readonly path: string;
  /** Decoded path parameters of the matched route. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Lower-case header names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The whole body, already read under the route's size cap. */
  readonly body: Uint8Array;
  /** Name of the bearer token that authenticated the request (absent: anonymous or auth off). */
  readonly token?: string;
  /** Set when the request came as an OTLP/gRPC call bridged onto the app (metric labels). */
  readonly transport?: 'grpc';
}

export type Chunk = string | Uint8Array;

export interface Res {
  /** True once the response ended or the client went away. */
  readonly closed: boolean;
  /** True when the client went away before the response ended. */
  readonly aborted: boolean;
  /** Set the status; only before the first `write` or `end`. */
  status(code: number): Res;
  header(name: string, value: string): Res;
  /** Send status, headers and (optionally) a last chunk, finishing the response. */
  end(body?: Chunk): void;
  /** Chunked write; false when the transport is backed up (wait for `onWritable`). */
  write(chunk: Chunk): boolean;
  /** Called once when a backed-up transport can take more data. */
  onWritable(cb: () => void): void;
  /** Called once if the client goes away before the response ended. */
  onAbort(cb: () => void): void;
}

/** What an adapter needs from the application: a body cap per request, then the handling. */
export interface HttpApp {
  /** Largest body accepted for this method and path (a request above it gets 413). */
  bodyLimit(method: string, path: string): number;
  handle(req: Omit<Req, 'params'>, res: Res): Promise<void>;
  /** Answer a body that went over `bodyLimit` (adapters stop reading it). */
  rejectOversizedBody(res: Res): void;
  /**
   * A request refused on its head alone (a missing or insufficient bearer token): the answer to
   * send instead of reading the body, or undefined to read it and `handle` the request.
   */
  refuseEarly?(method: string, path: string, headers: Readonly<Record<string, string>>): ((res: Res) => void) | undefined;
}
