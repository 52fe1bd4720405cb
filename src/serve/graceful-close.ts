/**
 * Stopping a server without a `5xx` and without cutting an answer short:
 * stop accepting connections, close the idle ones, let every request in
 * flight be answered (its connection then closed rather than kept alive),
 * and only then resolve, so the relay behind it closes after its last
 * answer. A client that never finishes its request is cut after a bound.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** How long requests in flight may take to finish once serve stops, before their connections are cut. */
const DEFAULT_DRAIN_MS = 25_000;

/** Closes `server` gracefully; see the module's comment. */
export type GracefulClose = () => Promise<void>;

/** Watches `server`'s requests from now on, and gives its graceful close. */
export function gracefulClose(server: Server, drainMs = DEFAULT_DRAIN_MS): GracefulClose {
  let closing = false;
  const watch = (_request: IncomingMessage, response: ServerResponse) => {
    if (closing) response.shouldKeepAlive = false;
    response.once('finish', () => {
      if (closing) server.closeIdleConnections();
    });
  };
  // A request that asks `Expect: 100-continue` comes as checkContinue, not request.
  server.on('request', watch);
  server.on('checkContinue', watch);
  let closed: Promise<void> | undefined;
  return () => {
    closed ??= new Promise<void>((resolve) => {
      closing = true;
      const cut = setTimeout(() => server.closeAllConnections(), drainMs);
      cut.unref();
      server.close(() => {
        clearTimeout(cut);
        resolve();
      });
      server.closeIdleConnections();
    });
    return closed;
  };
}
