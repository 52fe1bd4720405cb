/**
 * `/readyz`: ready when the journal and the payments service both answer now,
 * so a load balancer sends shoppers only to a process that can take their
 * order. Each probe is bounded in time: a frozen database makes the answer
 * `503` naming it, never a hung probe.
 */
import type { Journal } from '../server/journal/journal.js';
import type { ServiceClient } from '../server/service-client/service-client.js';

/** How long each part has to answer a readiness probe. */
const PROBE_TIMEOUT_MS = 2_000;

/** What `/readyz` found: the parts that did not answer (none: ready). */
export interface ReadinessReport {
  readonly failing: readonly ('journal' | 'service')[];
}

/** Probes the journal and the service. */
export type Readiness = () => Promise<ReadinessReport>;

/** A probe of `journal` (a read of an order no one has) and `client` (one page of one order). */
export function createReadiness(journal: Journal, client: ServiceClient): Readiness {
  return async () => {
    const [journalAnswers, serviceAnswers] = await Promise.all([
      answersWithin(() => journal.readOrder({ orderId: 'or_readiness_probe' })),
      answersWithin((signal) => client.orders.page({ pageNumber: 1, pageSize: 1 }, { signal })),
    ]);
    const failing: ('journal' | 'service')[] = [];
    if (!journalAnswers) failing.push('journal');
    if (!serviceAnswers) failing.push('service');
    return { failing };
  };
}

/** True when `probe` resolves within the probe time-out. */
async function answersWithin(probe: (signal: AbortSignal) => Promise<unknown>): Promise<boolean> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(false);
    }, PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([probe(controller.signal).then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
