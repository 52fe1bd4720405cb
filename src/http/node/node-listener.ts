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

/** Adapts a web-standard handler to a `node:http` request listener. */
export function toNodeListener(handler: WebHandler, options: NodeListenerOptions = {}): NodeListener {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return (incoming, outgoing) => {
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
