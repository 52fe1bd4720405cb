/**
 * The payments service in test mode, offline: every endpoint of
 * the service specification behind one web-standard handler, with its
 * authentication, error shape, paging and idempotency,
 * plus a small control surface of its own to approve or
 * decline a payment. Here the routes are assembled; the endpoints live in
 * create-order.ts, read-endpoints.ts and control-surface.ts. Web-only on
 * purpose: no `node:` import in this module's graph, so it runs on edge
 * runtimes as well as on Node.
 */
import { answerFor } from '../http/answer-errors.js';
import type { ConnectionInfo } from '../http/handler.js';
import { HttpError } from '../http/http-error.js';
import { type NodeListener, toNodeListener } from '../http/node/node-listener.js';
import { pathnameOf } from '../http/pathname.js';
import {
  IDEMPOTENT_REPLAYED_HEADER,
  PAYMENT_FAILURE_CODE,
  type PaymentFailureCode,
  SERVICE_MAX_BODY_BYTES,
} from '../shared/service-contract.js';
import { type ApiKeyInput, type Permission, SANDBOX_KEYS, type Session } from './authentication.js';
import {
  answerControl,
  answerPayer,
  CONTROL_ENDPOINTS,
  type ControlAction,
  isControlAction,
  SANDBOX_CONTROL_PATH,
} from './control-surface.js';
import { createOrderIdempotently, createOrderRecord } from './create-order.js';
import { misplacedMountHint } from './mount-hint.js';
import { orderCreationSchema, parseBody } from './order-schema.js';
import type { OrderStatusJson } from './order-views.js';
import { lookupChime, lookupOrder, lookupOtp, pageOrders, type ReadEndpoint } from './read-endpoints.js';
import { readServiceBody } from './read-service-body.js';
import { answerRequestLog, SANDBOX_REQUESTS_PATH } from './request-log.js';
import { createLedger, type SandboxLedger, type SandboxLedgerOptions } from './sandbox-ledger.js';

export { SANDBOX_CONTROL_PATH } from './control-surface.js';
export { type ReceivedRequest, SANDBOX_REQUESTS_PATH } from './request-log.js';

/** Options of {@link createSandbox}. */
export interface SandboxOptions extends SandboxLedgerOptions {
  /** Path prefix the sandbox answers under: `''` (default) or e.g. `'/sandbox'`. Other paths get `404`. */
  basePath?: string;
}

/** Why the payer declined, for {@link Sandbox.decline}. */
export type DeclineReason = PaymentFailureCode;

/** The keys of a sandbox: add or delete test keys, and see their sessions. */
export interface SandboxKeys {
  /** Adds (or replaces) a test-mode key; throws for a live key. */
  add(input: ApiKeyInput): void;
  /** Deletes a key; its next use gets `401`. True if it existed. */
  revoke(key: string): boolean;
  /** The key's current session, if it was used and the session has not expired. */
  sessionFor(key: string): Session | undefined;
}

/** A running sandbox: its handler, its controls and what it holds. */
export interface Sandbox {
  /**
   * The web-standard handler of the service's endpoints and the control
   * surface; `connection` (the Node listener gives it) lets the request log
   * answer loopback callers.
   */
  handle(request: Request, connection?: ConnectionInfo): Promise<Response>;
  /**
   * `handle` as a `node:http` listener: `createServer(sandbox.node)`, or
   * Express's `app.use('/sandbox', sandbox.node)` with `basePath: '/sandbox'`.
   */
  readonly node: NodeListener;
  /** The payer approves now: the payment becomes `paid`, the order `completed`. Throws `SandboxControlError`. */
  approve(orderId: string): OrderStatusJson;
  /** The payer declines now: the payment becomes `failed`. Throws `SandboxControlError`. */
  decline(orderId: string, reason?: DeclineReason): OrderStatusJson;
  /**
   * Creates `count` orders at once without HTTP, as `/orders/new` would for
   * `apiKey`'s application (default `sk_test_sandbox`) with `input`: for paging
   * and volume tests. Throws a TypeError for input `/orders/new` would refuse.
   * Returns the new ids, oldest first.
   */
  seedOrders(count: number, input: unknown, apiKey?: string): string[];
  /** Orders held now. */
  readonly orderCount: number;
  /** Orders ever created, evicted ones included: exactly-once tests count with it. */
  readonly createdOrderCount: number;
  /** Idempotency records held now. */
  readonly idempotencyRecordCount: number;
  /** The API keys the sandbox accepts. */
  readonly keys: SandboxKeys;
}

type ServiceRoute =
  | { kind: 'read'; permission: Permission; answer: ReadEndpoint }
  | { kind: 'create-order'; permission: Permission };

const SERVICE_ROUTES: ReadonlyMap<string, ServiceRoute> = new Map<string, ServiceRoute>([
  ['/orders/new', { kind: 'create-order', permission: 'orders:write' }],
  ['/orders/lookup', { kind: 'read', permission: 'orders:read', answer: lookupOrder }],
  ['/orders/page', { kind: 'read', permission: 'orders:read', answer: pageOrders }],
  ['/otp/lookup', { kind: 'read', permission: 'otp:read', answer: lookupOtp }],
  ['/chimes/lookup', { kind: 'read', permission: 'chimes:read', answer: lookupChime }],
]);

const ENDPOINTS: readonly string[] = [...SERVICE_ROUTES.keys(), ...CONTROL_ENDPOINTS, SANDBOX_REQUESTS_PATH];

/** Where a sandbox answers, and whether it has told the console of a request that missed its basePath. */
interface SandboxMount {
  readonly basePath: string;
  warned: boolean;
}

/** Creates a sandbox; see {@link SandboxOptions}. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const mount: SandboxMount = { basePath: normaliseBasePath(options.basePath ?? ''), warned: false };
  const ledger = createLedger(options);
  const handle = async (request: Request, connection?: ConnectionInfo): Promise<Response> => {
    const call: ServiceCall = { endpoint: undefined, orderId: null };
    let response: Response;
    try {
      response = await route(ledger, mount, request, call, connection);
    } catch (error) {
      response = answerFor(error, request, { unexpectedMessage: 'The sandbox failed to answer.' });
    }
    if (call.endpoint !== undefined) await logCall(ledger, call as LoggedCall, response);
    return response;
  };
  return {
    handle,
    node: toNodeListener(handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES }),
    approve: (orderId) => answerPayer(ledger, orderId, { approve: true }),
    decline: (orderId, reason = PAYMENT_FAILURE_CODE.declined) =>
      answerPayer(ledger, orderId, { approve: false, failureCode: reason }),
    seedOrders: (count, input, apiKey = SANDBOX_KEYS.secret) => seedOrders(ledger, count, input, apiKey),
    get orderCount() {
      return ledger.orders.size;
    },
    get createdOrderCount() {
      return ledger.orders.createdCount;
    },
    get idempotencyRecordCount() {
      return ledger.idempotency.size;
    },
    keys: {
      add: (input) => ledger.keys.add(input),
      revoke: (key) => ledger.keys.revoke(key),
      sessionFor: (key) => ledger.keys.sessionFor(key),
    },
  };
}

/** What a request to a service endpoint was, as the routing learns it, for the request log. */
interface ServiceCall {
  endpoint: string | undefined;
  /** The order a lookup asked for; a create's comes from its answer. */
  orderId: string | null;
}

type LoggedCall = ServiceCall & { endpoint: string };

/** Adds an answered service call to the log: the created order's id read from a create's answer. */
async function logCall(ledger: SandboxLedger, call: LoggedCall, response: Response): Promise<void> {
  let orderId = call.orderId;
  if (call.endpoint === '/orders/new' && response.ok) {
    const body = (await response.clone().json()) as { order?: { id?: string } };
    orderId = body.order?.id ?? null;
  }
  const replayed = response.headers.get(IDEMPOTENT_REPLAYED_HEADER) === 'true';
  ledger.requests.add({ endpoint: call.endpoint, status: response.status, order_id: orderId, replayed });
}

/** Routes by path: a service endpoint (key checked before the body is read) or the control surface. */
async function route(
  ledger: SandboxLedger,
  mount: SandboxMount,
  request: Request,
  call: ServiceCall,
  connection: ConnectionInfo | undefined,
): Promise<Response> {
  const path = pathnameOf(request.url);
  const { basePath } = mount;
  const localPath = path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : undefined;
  if (localPath === SANDBOX_REQUESTS_PATH) return answerRequestLog(ledger.requests, request, connection);
  const service = localPath === undefined ? undefined : SERVICE_ROUTES.get(localPath);
  const controlAction =
    localPath?.startsWith(`${SANDBOX_CONTROL_PATH}/`) === true
      ? localPath.slice(SANDBOX_CONTROL_PATH.length + 1)
      : undefined;
  if (!service && !isControlAction(controlAction)) throw notFound(mount, path);
  if (request.method !== 'POST') {
    throw new HttpError('methodNotAllowed', 'Use POST: every endpoint here takes a JSON body.', {
      headers: { allow: 'POST' },
    });
  }
  if (!service) return answerControl(ledger, request, controlAction as ControlAction);
  call.endpoint = localPath;
  const authentication = ledger.keys.authenticate(request.headers.get('authorization'), service.permission);
  if (!authentication.ok) throw new HttpError(authentication.kind, authentication.message);
  const body = await readServiceBody(request);
  if (typeof body.order_id === 'string') call.orderId = body.order_id;
  if (service.kind === 'read') return service.answer(ledger, body, authentication.session);
  return createOrderIdempotently(ledger, request, localPath as string, body, authentication);
}

/** The 404 of a path with no endpoint; for an endpoint under another prefix, it says how to mount. */
function notFound(mount: SandboxMount, path: string): HttpError {
  const hint = misplacedMountHint(path, mount.basePath, ENDPOINTS);
  if (hint === undefined) return new HttpError('resourceNotFound', 'There is no endpoint at this path.');
  if (!mount.warned) {
    mount.warned = true;
    // Through the relay the browser sees only a 502: the server console is where the developer looks.
    console.warn(`pay-checkout sandbox: ${hint}`);
  }
  return new HttpError('resourceNotFound', `There is no endpoint at this path. ${hint}`);
}

function seedOrders(ledger: SandboxLedger, count: number, input: unknown, apiKey: string): string[] {
  const authentication = ledger.keys.authenticate(`Bearer ${apiKey}`, 'orders:write');
  if (!authentication.ok) throw new TypeError(authentication.message);
  const parsed = parseBody(orderCreationSchema, input);
  if (!parsed.ok) throw new TypeError(`${parsed.param}: ${parsed.message}`);
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    ids.push(createOrderRecord(ledger, parsed.value, authentication.session).id);
  }
  return ids;
}

function normaliseBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed !== '' && !/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed)) {
    throw new TypeError('basePath must be empty or a path starting with "/", such as "/sandbox".');
  }
  return trimmed;
}
