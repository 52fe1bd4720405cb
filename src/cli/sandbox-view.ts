/**
 * `check-relay --sandbox <url>`: what the checker reads of the sandbox the
 * relay under test calls, through the sandbox's control surface. Its request
 * log shows what reached the service (a second order made by a re-sent
 * create, a lookup passed on with a forged token), and its decline frees a
 * number's open prompt so the next create may send a new one. Loopback only:
 * the log answers callers on the sandbox's own machine.
 */
import { SANDBOX_CONTROL_PATH } from '../sandbox/control-surface.js';
import { type ReceivedRequest, SANDBOX_REQUESTS_PATH } from '../sandbox/request-log.js';

/** The sandbox as the checker sees it. */
export interface SandboxView {
  /** The sandbox's base URL, as given. */
  readonly url: string;
  /** The seq of the newest request the sandbox received: read what comes after it. */
  mark(): Promise<number>;
  /** The requests received after `seq`, oldest first. */
  since(seq: number): Promise<ReceivedRequest[]>;
  /**
   * The requests after `seq` once one of them is `wanted`, or when `timeoutMs`
   * has passed without one (what the relay sent after a hang-up is not awaited for ever).
   */
  waitFor(
    seq: number,
    wanted: (request: ReceivedRequest) => boolean,
    timeoutMs: number,
  ): Promise<ReceivedRequest[]>;
  /** The payer declines the order's payment now; true if it was pending. */
  decline(orderId: string): Promise<boolean>;
}

/** The service's create endpoint, as the log names it. */
export const CREATE_ENDPOINT = '/orders/new';

/** The ids of the orders the service created among `requests` (replays and refusals made none). */
export function ordersCreatedIn(requests: readonly ReceivedRequest[]): string[] {
  return requests
    .filter((request) => request.endpoint === CREATE_ENDPOINT && request.status === 200 && !request.replayed)
    .map((request) => request.order_id as string);
}

/** A sandbox whose control surface did not answer as `pay-checkout sandbox` does. */
export class SandboxUnreadableError extends Error {
  constructor(url: string, reason: string, request = `GET ${SANDBOX_REQUESTS_PATH}`) {
    super(`the sandbox at ${url} did not answer ${request} (${reason})`);
    this.name = 'SandboxUnreadableError';
  }
}

/** How often {@link SandboxView.waitFor} reads the log. */
const POLL_MS = 50;

/** A view of the sandbox at `url`; throws {@link SandboxUnreadableError} when its log does not answer. */
export async function openSandboxView(url: string, timeoutMs: number): Promise<SandboxView> {
  const base = url.replace(/\/+$/, '');
  const read = async (seq: number): Promise<{ data: ReceivedRequest[]; last_seq: number }> => {
    let response: Response;
    try {
      response = await fetch(`${base}${SANDBOX_REQUESTS_PATH}?after=${seq}`, {
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause =
        (error as Error).cause instanceof Error ? ((error as Error).cause as Error) : (error as Error);
      throw new SandboxUnreadableError(base, `no answer: ${cause.message}`);
    }
    const body = (await response.json().catch(() => undefined)) as
      | { data?: ReceivedRequest[]; last_seq?: number }
      | undefined;
    if (response.status !== 200 || !Array.isArray(body?.data) || typeof body.last_seq !== 'number') {
      throw new SandboxUnreadableError(
        base,
        `${response.status}: is it pay-checkout sandbox, on this machine?`,
      );
    }
    return { data: body.data, last_seq: body.last_seq };
  };
  await read(0);
  const view: SandboxView = {
    url: base,
    mark: async () => (await read(Number.MAX_SAFE_INTEGER)).last_seq,
    since: async (seq) => (await read(seq)).data,
    async waitFor(seq, wanted, waitMs) {
      const until = Date.now() + waitMs;
      for (;;) {
        const requests = await view.since(seq);
        if (requests.some(wanted) || Date.now() >= until) return requests;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    async decline(orderId) {
      let response: Response;
      try {
        response = await fetch(`${base}${SANDBOX_CONTROL_PATH}/decline`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ order_id: orderId }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        await response.arrayBuffer();
      } catch (error) {
        const request = `POST ${SANDBOX_CONTROL_PATH}/decline`;
        throw new SandboxUnreadableError(base, `no answer: ${(error as Error).message}`, request);
      }
      return response.status === 200;
    },
  };
  return view;
}
