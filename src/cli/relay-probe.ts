/**
 * The HTTP side of `pay-checkout check-relay`: sends one request to a
 * merchant's relay the way `<pay-checkout>` would and keeps the
 * whole answer, so every check can read it and the privacy and header checks
 * can read every answer afterwards. A per-client `429` is waited out when it
 * asks for a short wait: it is the relay's limit at work, not a fault.
 */

/** One answer of the relay, kept whole. */
export interface RelayAnswer {
  /** What was sent, for fault messages: `create without Idempotency-Key`. */
  label: string;
  route: ProbeRoute;
  status: number;
  headers: Headers;
  /** The body as text. */
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
}

/** A request the relay did not answer at all. */
export class RelayUnreachableError extends Error {
  constructor(label: string, cause: unknown) {
    const reason = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause : cause).message : '';
    super(`${label}: no answer (${reason || String(cause)})`, { cause });
    this.name = 'RelayUnreachableError';
  }
}

/** The relay's routes: `<base>/orders`, `<base>/lookup`, `<base>/price`. */
export type ProbeRoute = 'create' | 'lookup' | 'price';

const ROUTE_PATHS: Readonly<Record<ProbeRoute, string>> = {
  create: 'orders',
  lookup: 'lookup',
  price: 'price',
};

/** One request to the relay. */
export interface ProbeRequest {
  label: string;
  route: ProbeRoute;
  /** The body as sent: an object is sent as JSON, a string as it is. */
  body: unknown;
  /** Default `application/json`. */
  contentType?: string;
  /** The `Idempotency-Key`; none when undefined. */
  idempotencyKey?: string;
}

/** What the probe tells its caller while it works: waits for the per-client limit. */
type ProbeNotice = (message: string) => void;

/** Options of {@link createRelayProbe}. */
export interface RelayProbeOptions {
  /** The relay's base URL; create is `<base>/orders`, lookup `<base>/lookup`. */
  baseUrl: string;
  /** How long one request may take. Default 15 s. */
  timeoutMs?: number;
  /** The longest per-client `Retry-After` waited out, in seconds. Default 65. */
  maxWaitSeconds?: number;
  /** The fetch to send with. Default the global one. */
  fetch?: typeof fetch;
  /** Told about each wait. */
  notice?: ProbeNotice;
  /** Waits; injectable so that a test need not. Default a timer. */
  sleep?: (ms: number) => Promise<void>;
}

/** Sends requests to one relay and keeps every answer. */
export interface RelayProbe {
  send(request: ProbeRequest): Promise<RelayAnswer>;
  /** Sends `request` whole, then closes the connection before any answer is read: an answer lost on the way. */
  hangUp(request: ProbeRequest): Promise<void>;
  /** Waits `ms`, as the probe waits out a `Retry-After`. */
  pause(ms: number): Promise<void>;
  /** Every answer so far, in order. */
  readonly answers: readonly RelayAnswer[];
  /** Creates sent so far, retries after a wait included. */
  readonly createsSent: number;
}

const PER_CLIENT_LIMIT_CODE = 'rate_limited';

/** A probe of the relay at `baseUrl`. */
export function createRelayProbe(options: RelayProbeOptions): RelayProbe {
  const base = options.baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxWaitSeconds = options.maxWaitSeconds ?? 65;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const answers: RelayAnswer[] = [];
  let createsSent = 0;

  async function once(request: ProbeRequest): Promise<RelayAnswer> {
    if (request.route === 'create') createsSent += 1;
    let response: Response;
    let text: string;
    try {
      response = await send(`${base}/${ROUTE_PATHS[request.route]}`, {
        method: 'POST',
        headers: headersOf(request),
        body: bodyOf(request),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      // A body cut halfway is no answer either.
      text = await response.text();
    } catch (error) {
      throw new RelayUnreachableError(request.label, error);
    }
    return {
      label: request.label,
      route: request.route,
      status: response.status,
      headers: response.headers,
      text,
      json: parseJson(text),
    };
  }

  return {
    async send(request) {
      let answer = await once(request);
      const wait = perClientWaitSeconds(answer);
      if (wait !== undefined && wait <= maxWaitSeconds) {
        options.notice?.(
          `${request.label}: 429 ${PER_CLIENT_LIMIT_CODE} (the relay's per-client limit), waiting ${wait} s as its Retry-After asks`,
        );
        await sleep(wait * 1000);
        answer = await once(request);
      }
      answers.push(answer);
      return answer;
    },
    async hangUp(request) {
      if (request.route === 'create') createsSent += 1;
      try {
        await sendAndHangUp(`${base}/${ROUTE_PATHS[request.route]}`, headersOf(request), bodyOf(request));
      } catch (error) {
        throw new RelayUnreachableError(request.label, error);
      }
    },
    pause: sleep,
    get answers() {
      return answers;
    },
    get createsSent() {
      return createsSent;
    },
  };
}

function headersOf(request: ProbeRequest): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': request.contentType ?? 'application/json' };
  if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
  return headers;
}

function bodyOf(request: ProbeRequest): string {
  return typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
}

/**
 * POSTs `body` on a connection of its own and destroys it once the request
 * is written, before any byte of the answer is read: what a shopper whose
 * network drops mid-create leaves the relay with.
 */
async function sendAndHangUp(url: string, headers: Record<string, string>, body: string): Promise<void> {
  const { request } = await import(url.startsWith('https:') ? 'node:https' : 'node:http');
  await new Promise<void>((resolve, reject) => {
    let written = false;
    const outgoing = request(url, { method: 'POST', headers, agent: false });
    // Destroying the request may report an error of its own: the hang-up was the point.
    outgoing.on('error', (error: Error) => (written ? resolve() : reject(error)));
    outgoing.end(body, () => {
      written = true;
      outgoing.destroy();
      resolve();
    });
  });
}

/** The seconds a per-client `429 rate_limited` asks to wait; undefined for any other answer. */
function perClientWaitSeconds(answer: RelayAnswer): number | undefined {
  if (!isPerClientLimit(answer)) return undefined;
  const value = answer.headers.get('retry-after')?.trim() ?? '';
  if (/^\d+$/.test(value)) return Math.max(1, Number(value));
  const date = Date.parse(value);
  return Number.isNaN(date) ? 1 : Math.max(1, Math.ceil((date - Date.now()) / 1000));
}

/** True for the relay's per-client limit (`429 rate_limited`): not the per-number prompt limit. */
export function isPerClientLimit(answer: RelayAnswer): boolean {
  return answer.status === 429 && errorCodeOf(answer) === PER_CLIENT_LIMIT_CODE;
}

/** `error.code` of an answer, when it has one. */
function errorCodeOf(answer: RelayAnswer): string | undefined {
  const error = (answer.json as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
