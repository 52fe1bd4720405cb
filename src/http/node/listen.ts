/**
 * Serves a Node listener on a port: what tests, the demo and `startSandbox`
 * use. `node:http` is imported when called, so importing this module loads
 * no `node:` module.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeListener } from './node-listener.js';

/** A server started on loopback (or the given host), with its address and a `close()`. */
export interface RunningServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** The `node:http` server. */
  server: Server;
  /** Stops accepting connections and closes idle ones. */
  close(): Promise<void>;
}

/** Where {@link listen} listens. */
export interface ListenOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /**
   * Headers of the answer to a request Node's parser refuses before any
   * handler runs (a control character in a header, a malformed request
   * line): the same security headers the handlers' answers carry.
   */
  errorHeaders?: Readonly<Record<string, string>>;
}

const PARSER_ERROR_BODY = JSON.stringify({
  error: { code: 'invalid_request', message: 'The request is malformed.', type: 'invalid_request_error' },
});

/**
 * Starts a `node:http` server for a listener; `port: 0` picks a free port.
 * Node, Bun and Deno only: the package's web entries (what edge bundlers
 * resolve) export a `listen` that rejects.
 */
export async function listen(
  listener: NodeListener,
  { port = 0, host = '127.0.0.1', errorHeaders = {} }: ListenOptions = {},
): Promise<RunningServer> {
  const { createServer } = await import('node:http');
  // No Host is the request URL's to judge (node-request.ts), so its 400 carries the handler's headers.
  const server = createServer({ requireHostHeader: false }, listener);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status =
      error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...errorHeaders,
      'content-length': String(Buffer.byteLength(PARSER_ERROR_BODY)),
      connection: 'close',
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(`HTTP/1.1 ${status}\r\n${head.join('')}\r\n${PARSER_ERROR_BODY}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
