/**
 * Runs a web-standard handler (`Request` → `Response`) on `node:http`, so the
 * relay and the sandbox serve Node, Express and Fastify with the same code
 * they serve edge runtimes with.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorResponse } from './http.js';

/** Context a Node adapter passes beside the request. */
export interface NodeRequestContext {
  /** The TCP peer's address, for per-client limits. */
  clientAddress: string;
}

/** A web-standard handler, with the Node adapter's context when it runs on Node. */
export type WebHandler = (request: Request, context?: NodeRequestContext) => Promise<Response> | Response;

/** A `node:http` request listener; Express and Fastify accept it too. */
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * Largest body the adapter buffers before the handler sees it; the handler
   * may set a smaller limit of its own. Default 1 MiB.
   */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Adapts a web-standard handler to a `node:http` request listener. */
export function toNodeListener(handler: WebHandler, options: NodeListenerOptions = {}): NodeListener {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return (incoming, outgoing) => {
    serve(handler, incoming, outgoing, maxBodyBytes).catch((error: unknown) => {
      if (!outgoing.headersSent) {
        void writeResponse(outgoing, errorResponse('internalError', 'The server failed to answer.'));
      } else {
        outgoing.destroy(error instanceof Error ? error : undefined);
      }
    });
  };
}

async function serve(
  handler: WebHandler,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  maxBodyBytes: number,
): Promise<void> {
  const abort = new AbortController();
  // The shopper's browser may go away mid-request; let the handler stop its upstream call.
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) abort.abort();
  });
  const body = await readBody(incoming, maxBodyBytes);
  if (body === 'too-large') {
    await writeResponse(
      outgoing,
      errorResponse('payloadTooLarge', `The body is over ${maxBodyBytes} bytes.`),
      true,
    );
    return;
  }
  const request = new Request(requestUrl(incoming), {
    method: incoming.method,
    headers: requestHeaders(incoming),
    // Node's buffers sit on plain ArrayBuffers; the DOM typings cannot know that.
    body: body && body.byteLength > 0 ? (body as Uint8Array<ArrayBuffer>) : undefined,
    signal: abort.signal,
  });
  const response = await handler(request, { clientAddress: incoming.socket.remoteAddress ?? 'unknown' });
  await writeResponse(outgoing, response);
}

function requestUrl(incoming: IncomingMessage): string {
  const host = incoming.headers.host ?? 'localhost';
  return `http://${host}${incoming.url ?? '/'}`;
}

function requestHeaders(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
    const name = incoming.rawHeaders[index] as string;
    // HTTP/2 pseudo-headers and hop-by-hop fields are not for the handler.
    if (name.startsWith(':') || /^(?:connection|keep-alive|transfer-encoding|upgrade)$/i.test(name)) continue;
    headers.append(name, incoming.rawHeaders[index + 1] as string);
  }
  return headers;
}

async function readBody(
  incoming: IncomingMessage,
  maxBytes: number,
): Promise<Buffer | undefined | 'too-large'> {
  if (incoming.method === 'GET' || incoming.method === 'HEAD') return undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    received += chunk.byteLength;
    if (received > maxBytes) return 'too-large';
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

async function writeResponse(
  outgoing: ServerResponse,
  response: Response,
  closeAfter = false,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (closeAfter) headers.connection = 'close';
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  outgoing.writeHead(response.status, headers);
  outgoing.end(body);
}

/** A server started on loopback (or the given host), with its address and a `close()`. */
export interface RunningServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  port: number;
  server: Server;
  /** Stops accepting connections and closes idle ones. */
  close(): Promise<void>;
}

/** Starts a `node:http` server for a listener; `port: 0` picks a free port. */
export async function listen(
  listener: NodeListener,
  { port = 0, host = '127.0.0.1' }: { port?: number; host?: string } = {},
): Promise<RunningServer> {
  const server = createServer(listener);
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
