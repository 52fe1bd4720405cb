/**
 * Runs a web-standard handler (`Request` → `Response`) on `node:http`, so the
 * relay and the sandbox serve Node, Express and Fastify with the same code
 * they serve edge runtimes with. The body is buffered (within a limit and a
 * time) before the handler runs, and the handler gets a lazy `Request`
 * (node-request.ts). What the listener refuses itself (a body over the
 * limit, a body that stalls, a failure to write the answer) it answers in the
 * service's error shape, with the security headers every answer carries.
 */
// Types only at module level: importing this module loads no `node:` module.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceErrorKind } from '../../shared/service-contract.js';
import { answerFor } from '../answer-errors.js';
import type { ConnectionInfo, WebHandler } from '../handler.js';
import { errorResponse } from '../http-error.js';
import { nodeRequest } from './node-request.js';
import { readNodeBody, TIMED_OUT, TOO_LARGE } from './read-node-body.js';
import { writeResponse } from './write-response.js';

/** A `node:http` request listener; Express and Fastify accept it too. */
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * Largest body read before the handler sees it: more is `413`, and a
   * declared `Content-Length` over it is refused before any byte of the body
   * is read (and before a `100 Continue` invites it). Default 16 KiB, the
   * relay's own limit; the handler may set a smaller limit of its own.
   */
  maxBodyBytes?: number;
  /**
   * Time the whole body has, from the request's headers on, to arrive: past
   * it the request is answered `408` and its connection closed. Default 10 s.
   */
  bodyTimeoutMs?: number;
  /**
   * Headers of the answers the listener makes itself (`413`, `408`, `500`),
   * beside the JSON ones every answer has (`Cache-Control: no-store`,
   * `X-Content-Type-Options: nosniff`): the security headers the handler's
   * own answers carry, such as a `Content-Security-Policy`. A function gets
   * the request (its body unread) and answers the headers for it, such as
   * CORS headers for an allowed `Origin`.
   */
  errorHeaders?: Readonly<Record<string, string>> | ErrorHeadersOf;
}

/** The headers of the listener's own answer to `request`, whose body it has not read. */
export type ErrorHeadersOf = (request: Request) => Readonly<Record<string, string>>;

/** The relay's body limit: a listener reads no more unless told. */
const DEFAULT_MAX_BODY_BYTES = 16 * 1024;
/** A checkout's body is a few hundred bytes: on the slowest mobile network it arrives within seconds. */
const DEFAULT_BODY_TIMEOUT_MS = 10_000;

interface ListenerSettings {
  maxBodyBytes: number;
  tooLargeMessage: string;
  bodyTimeoutMs: number;
  errorHeaders: Readonly<Record<string, string>> | ErrorHeadersOf;
}

/** Said once per listener on the server console: the browser only sees the handler's 400. */
const BODY_TAKEN_WARNING =
  'pay-checkout: a request came with its body already read by something mounted in front of this ' +
  "handler (a body parser such as express.json(), or Fastify's own), so the handler got an empty " +
  'body. Mount it before any body parser; in Fastify, in a plugin scope with body parsing off ' +
  '(README, "Mounting it").';

/**
 * Adapts a web-standard handler to a `node:http` request listener. Give the
 * server it serves on the same listener for `checkContinue` (`listen` does),
 * so that a client asking before it sends a body over the limit is refused
 * rather than told to go ahead.
 */
export function toNodeListener(handler: WebHandler, options: NodeListenerOptions = {}): NodeListener {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const settings: ListenerSettings = {
    maxBodyBytes,
    tooLargeMessage: `The body is over ${maxBodyBytes} bytes.`,
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    errorHeaders: options.errorHeaders ?? {},
  };
  let warnedOfTakenBody = false;
  return (incoming, outgoing) => {
    if (!warnedOfTakenBody && bodyTakenBefore(incoming)) {
      warnedOfTakenBody = true;
      console.warn(BODY_TAKEN_WARNING);
    }
    serve(handler, incoming, outgoing, settings).catch((error: unknown) => {
      if (outgoing.headersSent) {
        outgoing.destroy(error instanceof Error ? error : undefined);
        return;
      }
      answerItself(
        incoming,
        outgoing,
        settings,
        'internalError',
        'The server failed to answer.',
        false,
      ).catch(() => outgoing.destroy());
    });
  };
}

/** True when a framework read a body the request declared before the listener ran. */
function bodyTakenBefore(incoming: IncomingMessage): boolean {
  if (!incoming.readableEnded) return false;
  const length = incoming.headers['content-length'];
  return (length !== undefined && length !== '0') || incoming.headers['transfer-encoding'] !== undefined;
}

/** An `Expect` that asks for `100 Continue`, as Node reads it (lib/_http_server.js). */
const EXPECTS_CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * True when the client waits for `100 Continue` before sending its body and
 * none was sent: Node answers `Expect` itself, before the listener runs,
 * unless the server hands `checkContinue` to a listener, and marks the
 * response when it does (`_sent100`). A runtime without that mark gets a
 * second `100 Continue`, which clients skip, rather than a request that hangs.
 */
function awaitsContinue(incoming: IncomingMessage, outgoing: ServerResponse): boolean {
  return (
    incoming.httpVersion === '1.1' &&
    EXPECTS_CONTINUE.test(incoming.headers.expect ?? '') &&
    (outgoing as ServerResponse & { _sent100?: boolean })._sent100 !== true
  );
}

async function serve(
  handler: WebHandler,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  settings: ListenerSettings,
): Promise<void> {
  // Node's parser has checked the header: when present, it is one whole number.
  if (Number(incoming.headers['content-length'] ?? 0) > settings.maxBodyBytes) {
    await answerItself(incoming, outgoing, settings, 'payloadTooLarge', settings.tooLargeMessage);
    return;
  }
  if (awaitsContinue(incoming, outgoing)) outgoing.writeContinue();
  let body: Awaited<ReturnType<typeof readNodeBody>>;
  try {
    body = await readNodeBody(incoming, settings.maxBodyBytes, settings.bodyTimeoutMs);
  } catch {
    // The client went away mid-body: there is no one to answer.
    outgoing.destroy();
    return;
  }
  if (body === TOO_LARGE) {
    await answerItself(incoming, outgoing, settings, 'payloadTooLarge', settings.tooLargeMessage);
    return;
  }
  if (body === TIMED_OUT) {
    await answerItself(incoming, outgoing, settings, 'requestTimeout', 'The body did not arrive in time.');
    return;
  }
  const request = nodeRequest(incoming, outgoing, body);
  const connection: ConnectionInfo = {
    clientAddress: incoming.socket.remoteAddress ?? 'unknown',
    // Made on first read only, as the request's own (node-request.ts).
    get signal() {
      return request.signal;
    },
  };
  let response: Response;
  try {
    response = await handler(request, connection);
  } catch (error) {
    response = answerFor(error, request);
  }
  await writeResponse(outgoing, response);
}

/** An answer the listener makes itself; `closeAfter` when the body was not read to its end. */
function answerItself(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  settings: ListenerSettings,
  kind: ServiceErrorKind,
  message: string,
  closeAfter = true,
): Promise<void> {
  const headers = errorHeadersFor(incoming, outgoing, settings.errorHeaders);
  return writeResponse(outgoing, errorResponse(kind, message, { headers }), closeAfter);
}

function errorHeadersFor(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  errorHeaders: ListenerSettings['errorHeaders'],
): Readonly<Record<string, string>> {
  if (typeof errorHeaders !== 'function') return errorHeaders;
  try {
    return errorHeaders(nodeRequest(incoming, outgoing, undefined));
  } catch {
    // The listener's own answer goes out whatever the function does: with the JSON headers only.
    return {};
  }
}
