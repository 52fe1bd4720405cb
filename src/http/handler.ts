/**
 * What a server piece is: a function from a web-standard `Request` to a
 * `Response`, with what the runtime knows about the connection beside it.
 */

/** What the runtime knows about the connection a request came on. */
export interface ConnectionInfo {
  /** The peer's address (the TCP peer on Node), for per-client limits. */
  clientAddress?: string;
  /**
   * Aborted when the client goes away before its answer (the Node listener
   * gives it). Handlers read this, never `request.signal`: on Deno the mere
   * reading of `request.signal` prints a warning once the answer is sent.
   */
  signal?: AbortSignal;
}

/** A web-standard handler; `connection` is given by runtimes that know it (the Node listener does). */
export type WebHandler = (request: Request, connection?: ConnectionInfo) => Promise<Response> | Response;
