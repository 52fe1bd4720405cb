/**
 * Serves a Node listener on a port: what tests, the demo and `startSandbox`
 * use. `node:http` is imported when called, so importing this module loads
 * no `node:` module.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ServiceErrorKind } from '../../shared/service-contract.js';
import { HttpError } from '../http-error.js';
import { JSON_HEADERS } from '../json-response.js';
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

/** Where {@link listen} listens, and how long it waits for a request. */
export interface ListenOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /**
   * Headers of the answer to a request Node's parser refuses before any
   * handler runs (a control character in a header, a malformed request
   * line, headers that stop arriving): the same security headers the
   * handlers' answers carry.
   */
  errorHeaders?: Readonly<Record<string, string>>;
  /** Time a client has to send a request's headers: past it, `408` and the connection closed. Default 10 s. */
  headersTimeoutMs?: number;
  /**
   * Time a client has to send a whole request, body included: past it,
   * `408` and the connection closed. Default 30 s: a backstop behind the
   * listener's own body time-out (`toNodeListener`'s `bodyTimeoutMs`).
   */
  requestTimeoutMs?: number;
}

const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Node's parser errors that get their own status; any other is `400`. */
const PARSER_REFUSALS: Readonly<Record<string, { status: string; kind: ServiceErrorKind; message: string }>> =
  {
    HPE_HEADER_OVERFLOW: {
      status: '431 Request Header Fields Too Large',
      kind: 'invalidRequest',
      message: 'The request headers are too large.',
    },
    ERR_HTTP_REQUEST_TIMEOUT: {
      status: '408 Request Timeout',
      kind: 'requestTimeout',
      message: 'The request did not arrive in time.',
    },
  };
const MALFORMED = {
  status: '400 Bad Request',
  kind: 'invalidRequest',
  message: 'The request is malformed.',
} as const;

/**
 * Starts a `node:http` server for a listener; `port: 0` picks a free port.
 * The listener also answers `checkContinue`, so a body it would refuse is
 * refused before the client sends it. Node, Bun and Deno only: the package's
 * web entries (what edge bundlers resolve) export a `listen` that rejects.
 */
export async function listen(listener: NodeListener, options: ListenOptions = {}): Promise<RunningServer> {
  const { port = 0, host = '127.0.0.1', errorHeaders = {} } = options;
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const { createServer } = await import('node:http');
  const server = createServer(
    {
      // No Host is the request URL's to judge (node-request.ts), so its 400 carries the handler's headers.
      requireHostHeader: false,
      headersTimeout,
      requestTimeout: Math.max(headersTimeout, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
      // Node looks for late requests every 30 s unless told: a time-out would hold that much longer.
      connectionsCheckingInterval: Math.max(1, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
    listener,
  );
  server.on('checkContinue', listener);
  server.on('clientError', answerClientError(errorHeaders));
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

/** Answers a request Node's parser refused, or that did not arrive in time, in the service's error shape. */
function answerClientError(
  errorHeaders: Readonly<Record<string, string>>,
): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable || answerStarted(socket)) {
      socket.destroy();
      return;
    }
    const refusal = PARSER_REFUSALS[error.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify(new HttpError(refusal.kind, refusal.message).toJSON());
    const headers = {
      ...JSON_HEADERS,
      ...errorHeaders,
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(`HTTP/1.1 ${refusal.status}\r\n${head.join('')}\r\n${body}`);
  };
}

/**
 * True when an answer on this connection has begun: another status line
 * would corrupt it. Node keeps the answer in flight on the socket, and makes
 * the same check before it answers a client error itself (lib/_http_server.js).
 */
function answerStarted(socket: Duplex): boolean {
  return (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
}
