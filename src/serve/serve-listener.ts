/**
 * serve's routes, by path, on `node:http`: the relay under `/checkout/` (its
 * own Node listener, the same one a merchant mounts), the merchant API under
 * `/v1/`, the embed script, `/healthz` and `/readyz`, and the embedded
 * sandbox under `/sandbox/`, whose control surface (which approves payments
 * and takes no key) answers this machine only. Every other path is `404`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../http/http-error.js';
import { JSON_HEADERS } from '../http/json-response.js';
import { isLocalRequest } from '../http/node/local-request.js';
import type { NodeListener } from '../http/node/node-listener.js';
import type { EmbedAsset } from './embed-asset.js';
import type { Readiness } from './readiness.js';

/** Where the embedded sandbox answers: its service API, and its control surface beneath. */
export const SANDBOX_PATH = '/sandbox';
/** The control surface's prefix under the sandbox's path. */
const SANDBOX_CONTROL_PREFIX = `${SANDBOX_PATH}/_sandbox/`;
/** Where the embed script is served. */
export const EMBED_PATH = '/pay-checkout.embed.js';

/** What the routes answer with. */
export interface ServeRoutes {
  /** The relay's Node listener (`relay.node`). */
  readonly relay: NodeListener;
  /** The merchant API's Node listener. */
  readonly merchantApi: NodeListener;
  /** The embedded sandbox's Node listener, without `service`. */
  readonly sandbox: NodeListener | undefined;
  /** The embed script; `undefined` when the package's build has none (sources). */
  readonly embed: EmbedAsset | undefined;
  readonly readiness: Readiness;
  /** True once serve is stopping: `/readyz` says so, so a balancer stops sending. */
  readonly closing: () => boolean;
}

/** The one listener of serve. */
export function serveListener(routes: ServeRoutes): NodeListener {
  return (request, response) => {
    const path = pathOf(request.url);
    if (path.startsWith('/checkout/')) return routes.relay(request, response);
    if (path === '/v1' || path.startsWith('/v1/')) return routes.merchantApi(request, response);
    if (routes.sandbox && path.startsWith(`${SANDBOX_PATH}/`)) {
      if (path.startsWith(SANDBOX_CONTROL_PREFIX) && !isLocalRequest(request)) return notFound(response);
      return routes.sandbox(request, response);
    }
    if (path === EMBED_PATH) return answerEmbed(request, response, routes.embed);
    if (path === '/healthz') return sendJson(response, 200, { status: 'ok' });
    if (path === '/readyz') return void answerReadiness(response, routes);
    notFound(response);
  };
}

/**
 * The path of a request target, without its query, as the handlers behind
 * will read it: a URL parser resolves `.` and `..` segments and turns `\`
 * into `/`, so a target such as `/sandbox/./_sandbox/…` is routed as the
 * control path it becomes, never past the check. A plain target (the usual
 * one) is taken as it is, unparsed.
 */
function pathOf(target: string | undefined): string {
  const raw = (target ?? '/').split('?', 1)[0] as string;
  if (raw.startsWith('/') && !/[.\\%]/.test(raw)) return raw;
  try {
    return new URL(raw, 'http://localhost').pathname;
  } catch {
    return '';
  }
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...JSON_HEADERS,
    ...headers,
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}

function notFound(response: ServerResponse): void {
  sendJson(response, 404, new HttpError('resourceNotFound', 'Nothing here.').toJSON());
}

function answerEmbed(
  request: IncomingMessage,
  response: ServerResponse,
  embed: EmbedAsset | undefined,
): void {
  if (embed === undefined) {
    const message = 'This serve has no built embed (run it from the package).';
    sendJson(response, 404, new HttpError('resourceNotFound', message).toJSON());
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const refusal = new HttpError('methodNotAllowed', 'Use GET.').toJSON();
    sendJson(response, 405, refusal, { allow: 'GET, HEAD' });
    return;
  }
  if (request.headers['if-none-match'] === embed.headers.etag) {
    const { 'content-length': _length, 'content-type': _type, ...headers } = embed.headers;
    response.writeHead(304, headers).end();
    return;
  }
  response.writeHead(200, embed.headers);
  response.end(request.method === 'HEAD' ? undefined : embed.code);
}

async function answerReadiness(response: ServerResponse, routes: ServeRoutes): Promise<void> {
  if (routes.closing()) return sendJson(response, 503, { status: 'closing' });
  const { failing } = await routes.readiness();
  if (failing.length === 0) return sendJson(response, 200, { status: 'ready' });
  sendJson(response, 503, {
    status: 'not_ready',
    failing,
    message: `${failing.join(' and ')} not answering`,
  });
}
