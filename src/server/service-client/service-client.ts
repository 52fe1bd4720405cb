/**
 * A typed, validated client for the payments service. Each
 * endpoint checks its input, then makes one call (service-call.ts: auth,
 * idempotency, time-outs, retries) whose answer is interpreted in
 * service-answer.ts. Web-standard only, so it runs on Node and edge runtimes.
 */
import type * as z from 'zod/mini';
import type { HttpTransport, TransportAnswer } from '../../http/transport.js';
import {
  DEFAULT_LIST_PAGE_SIZE,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENT_REPLAYED_HEADER,
  LOOKUP_ID_FIELDS,
  SERVICE_ERRORS,
} from '../../shared/service-contract.js';
import { issueParam } from '../../shared/wire.js';
import { isOrderLookupAnswer } from './order-answer-check.js';
import { callService, type ServiceCall } from './service-call.js';
import {
  resolveServiceClientConfig,
  type ServiceClientConfig,
  type ServiceClientOptions,
} from './service-client-config.js';
import { ServiceInvalidRequestError } from './service-errors.js';
import {
  chimeLookupInputSchema,
  type Order,
  type OrderCreateInput,
  type OrderCreateResult,
  type OrderLookupAnswer,
  type OrderPageAnswer,
  orderCreateAnswerSchema,
  orderCreateInputSchema,
  orderLookupAnswerSchema,
  orderLookupInputSchema,
  orderPageAnswerSchema,
  orderPageInputSchema,
  otpLookupInputSchema,
  SERVICE_ORDER_ID_PATTERN,
  type UnshownRecordAnswer,
  unshownRecordAnswerSchema,
} from './service-schemas.js';

/** Per-call options. */
export interface ServiceRequestOptions {
  /** Cancels the call, retries and waits included; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Per-call options of a write. */
export interface ServiceWriteOptions extends ServiceRequestOptions {
  /**
   * The idempotency key (16–255 of `[A-Za-z0-9_-]`). Give one per logical
   * operation and reuse it to retry; when absent a random UUID is used for
   * this call and its own retries.
   */
  idempotencyKey?: string;
}

/** Which page of orders to read. */
export interface OrderPageRequest {
  /** 1-based; page 1 holds the newest orders. */
  pageNumber: number;
  /** 1 to 256. */
  pageSize: number;
}

/** Options of `orders.list()`. */
export interface OrderListOptions extends ServiceRequestOptions {
  /** Orders per page requested. Default 100 (the service recommends 25 to 100). */
  pageSize?: number;
}

/** The typed client {@link createServiceClient} returns. */
export interface ServiceClient {
  orders: {
    /** `POST /orders/new`: creates an order (and starts its payment with `execute_payment`). */
    create(input: OrderCreateInput, options?: ServiceWriteOptions): Promise<OrderCreateResult>;
    /** `POST /orders/lookup`: the order with its nested payment. */
    lookup(orderId: string, options?: ServiceRequestOptions): Promise<OrderLookupAnswer>;
    /** `POST /orders/page`: one page of orders, newest first. */
    page(request: OrderPageRequest, options?: ServiceRequestOptions): Promise<OrderPageAnswer>;
    /**
     * Every order, newest first, following the service's paging rule: page
     * after page until one holds fewer than `pageSize`. Orders created while
     * iterating shift the pages, so an order may be seen twice.
     */
    list(options?: OrderListOptions): AsyncIterableIterator<Order>;
  };
  otp: {
    /** `POST /otp/lookup`: the OTP record, whose fields the service does not show. */
    lookup(otpId: string, options?: ServiceRequestOptions): Promise<UnshownRecordAnswer>;
  };
  chimes: {
    /** `POST /chimes/lookup`: the chime record, whose fields the service does not show. */
    lookup(chimeId: string, options?: ServiceRequestOptions): Promise<UnshownRecordAnswer>;
  };
}

/**
 * Creates a client for the service at `baseUrl`. Throws a TypeError at once
 * for a missing, publishable or malformed key, or a bad base URL; the key is
 * never quoted, in that error or any later one.
 */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  return serviceClientFor(resolveServiceClientConfig(options));
}

/** The client on a given transport (the relay's Node entry gives undici's). */
export function createServiceClientOn(
  options: ServiceClientOptions,
  transport: HttpTransport,
): ServiceClient {
  return serviceClientFor(resolveServiceClientConfig(options, transport));
}

function serviceClientFor(config: ServiceClientConfig): ServiceClient {
  const call = <Output>(request: ServiceCall<Output>) => callService(config, request);
  const lookupBy = <Output>(
    path: string,
    field: string,
    inputSchema: z.ZodMiniType<unknown>,
    answerSchema: z.ZodMiniType<Output>,
  ) => lookupOn(config, { path, field, inputSchema, answerSchema });
  const page = (request: OrderPageRequest, options: ServiceRequestOptions = {}): Promise<OrderPageAnswer> =>
    guard(() => {
      const body = validated(
        orderPageInputSchema,
        { page_number: request.pageNumber, page_size: request.pageSize },
        config,
      );
      return call({
        path: '/orders/page',
        body,
        answerSchema: orderPageAnswerSchema,
        signal: options.signal,
      });
    });
  const client: ServiceClient = {
    orders: {
      create: (input, options = {}) =>
        guard(() => {
          const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
          if (!IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
            throw invalidInput(
              IDEMPOTENCY_KEY_HEADER,
              'An idempotency key is 16 to 255 characters of A-Z a-z 0-9 _ -.',
            );
          }
          const body = validated(orderCreateInputSchema, input, config);
          const answerSchema = orderCreateAnswerSchema;
          // The last answer read is the one returned: retries inside the call replace it.
          let replayed = false;
          const onAnswer = (answer: TransportAnswer) => {
            replayed = answer.header(IDEMPOTENT_REPLAYED_HEADER) === 'true';
          };
          return call({
            path: '/orders/new',
            body,
            answerSchema,
            idempotencyKey,
            signal: options.signal,
            onAnswer,
          }).then((answer) => ({ ...answer, replayed }));
        }),
      lookup: lookupBy(
        '/orders/lookup',
        LOOKUP_ID_FIELDS.orders,
        orderLookupInputSchema,
        orderLookupAnswerSchema,
      ),
      page,
      list: (options = {}) => listOrders(page, options),
    },
    otp: {
      lookup: lookupBy('/otp/lookup', LOOKUP_ID_FIELDS.otp, otpLookupInputSchema, unshownRecordAnswerSchema),
    },
    chimes: {
      lookup: lookupBy(
        '/chimes/lookup',
        LOOKUP_ID_FIELDS.chimes,
        chimeLookupInputSchema,
        unshownRecordAnswerSchema,
      ),
    },
  };
  Object.defineProperty(client, STATUS_LOOKUP, { value: statusLookupOn(config) });
  return client;
}

/** One lookup route of the service: its path, its id field, and the shapes of its body and answer. */
interface LookupRoute<Output> {
  path: string;
  field: string;
  inputSchema: z.ZodMiniType<unknown>;
  answerSchema: z.ZodMiniType<Output>;
  /** A check accepting exactly what `answerSchema` does (service-call.ts). */
  isAnswer?: (json: unknown) => boolean;
  /** The pattern `inputSchema` holds the id to, when that is all it checks: a matching id needs no parse. */
  idPattern?: RegExp;
}

/** The lookup of `route` by id, on `config`. */
function lookupOn<Output>(config: ServiceClientConfig, route: LookupRoute<Output>) {
  const { path, field, inputSchema, answerSchema, isAnswer, idPattern } = route;
  return (id: string, options: ServiceRequestOptions = {}): Promise<Output> =>
    guard(() => {
      const body =
        typeof id === 'string' && idPattern?.test(id)
          ? { [field]: id }
          : validated(inputSchema, { [field]: id }, config);
      return callService(config, { path, body, answerSchema, isAnswer, signal: options.signal });
    });
}

/** The relay's lookup of an order's statuses, on `config`: `orders.lookup` with the written-out answer check. */
function statusLookupOn(config: ServiceClientConfig): StatusLookup {
  return lookupOn(config, {
    path: '/orders/lookup',
    field: LOOKUP_ID_FIELDS.orders,
    inputSchema: orderLookupInputSchema,
    answerSchema: orderLookupAnswerSchema,
    isAnswer: isOrderLookupAnswer,
    idPattern: SERVICE_ORDER_ID_PATTERN,
  });
}

type StatusLookup = (orderId: string) => Promise<OrderLookupAnswer>;

/** Where a client made here keeps its lookup for the relay's reads of an order's statuses. */
const STATUS_LOOKUP = Symbol('statusLookup');

/**
 * `client.orders.lookup(orderId)` for a read of the order's statuses: the
 * same call and the same checks, but an answer in the documented shape is
 * the service's JSON as parsed, not a copy the schema builds (about 5 µs a
 * lookup). Any other client is asked through `orders.lookup`.
 */
export function lookupOrderStatuses(client: ServiceClient, orderId: string): Promise<OrderLookupAnswer> {
  const own = (client as ServiceClient & { [STATUS_LOOKUP]?: StatusLookup })[STATUS_LOOKUP];
  return own ? own(orderId) : client.orders.lookup(orderId);
}

async function* listOrders(
  page: (request: OrderPageRequest, options: ServiceRequestOptions) => Promise<OrderPageAnswer>,
  options: OrderListOptions,
): AsyncGenerator<Order, void, undefined> {
  const pageSize = options.pageSize ?? DEFAULT_LIST_PAGE_SIZE;
  for (let pageNumber = 1; ; pageNumber++) {
    const answer = await page({ pageNumber, pageSize }, { signal: options.signal });
    yield* answer.page.orders;
    // The service's paging rule: a short page is the last one.
    if (answer.page.orders.length < pageSize) return;
  }
}

/** Runs `start`, turning a synchronous throw (bad input) into a rejected promise. */
function guard<Output>(start: () => Promise<Output>): Promise<Output> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}

function validated<Input>(schema: z.ZodMiniType<Input>, input: unknown, config: ServiceClientConfig): Input {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalidInput(issue ? issueParam(issue) : '', config.redact(issue?.message ?? 'Invalid request.'));
}

function invalidInput(param: string, message: string): ServiceInvalidRequestError {
  // Found before sending: the same class and status the service would answer with.
  return new ServiceInvalidRequestError({ ...SERVICE_ERRORS.invalidRequest, message, param });
}
