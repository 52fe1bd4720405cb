/**
 * Runs a web-standard handler (`Request` → `Response`) on `node:http`, so the
 * relay and the sandbox serve Node, Express and Fastify with the same code
 * they serve edge runtimes with. The body is buffered (within a limit) before
 * the handler runs, and the handler gets a lazy `Request` (node-request.ts).
 */
// Types only at module level: importing this module loads no `node:` module.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerFor } from '../answer-errors.js';
import type { WebHandler } from '../handler.js';
import { errorResponse } from '../http-error.js';
import { nodeRequest } from './node-request.js';
import { readNodeBody, TOO_LARGE } from './read-node-body.js';
import { writeResponse } from './write-response.js';

/** A `node:http` request listener; Express and Fastify accept it too. */
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * Largest body buffered before the handler sees it; the handler may set a
   * smaller limit of its own. Default 1 MiB.
   */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Said once per listener on the server console: the browser only sees the handler's 400. */
const BODY_TAKEN_WARNING =
  'pay-checkout: a request came with its body already read by something mounted in front of this ' +
  "handler (a body parser such as express.json(), or Fastify's own), so the handler got an empty " +
  'body. Mount it before any body parser; in Fastify, in a plugin scope with body parsing off ' +
  '(README, "Mounting it").';

/** Adapts a web-standard handler to a `node:http` request listener. */
export function toNodeListener(handler: WebHandler, options: NodeListenerOptions = {}): NodeListener {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let warnedOfTakenBody = false;
  return (incoming, outgoing) => {
    if (!warnedOfTakenBody && bodyTakenBefore(incoming)) {
      warnedOfTakenBody = true;
      console.warn(BODY_TAKEN_WARNING);
    }
    serve(handler, incoming, outgoing, maxBodyBytes).catch((error: unknown) => {
      if (outgoing.headersSent) {
        outgoing.destroy(error instanceof Error ? error : undefined);
        return;
      }
      writeResponse(outgoing, errorResponse('internalError', 'The server failed to answer.')).catch(() =>
        outgoing.destroy(),
      );
    });
  };
}

/** True when a framework read a body the request declared before the listener ran. */
function bodyTakenBefore(incoming: IncomingMessage): boolean {
  if (!incoming.readableEnded) return false;
  const length = incoming.headers['content-length'];
  return (length !== undefined && length !== '0') || incoming.headers['transfer-encoding'] !== undefined;
}

async function serve(
  handler: WebHandler,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  maxBodyBytes: number,
): Promise<void> {
  const body = await readNodeBody(incoming, maxBodyBytes);
  if (body === TOO_LARGE) {
    await writeResponse(
      outgoing,
      errorResponse('payloadTooLarge', `The body is over ${maxBodyBytes} bytes.`),
      true,
    );
    return;
  }
  const request = nodeRequest(incoming, outgoing, body);
  let response: Response;
  try {
    response = await handler(request, { clientAddress: incoming.socket.remoteAddress ?? 'unknown' });
  } catch (error) {
    response = answerFor(error, request);
  }
  await writeResponse(outgoing, response);
}
