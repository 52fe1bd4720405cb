/**
 * `pay-checkout reconcile --journal <url> [--since <date>]`: lists every
 * difference between the payments service and the relay's order journal
 * (reconciliation.ts), one line each, order ids and statuses only. Exit 1
 * when there is any, 0 when there is none. The service's base URL and key
 * come from the environment, as the relay's do, never from the command line
 * (where a key would stay in the shell's history).
 */
import { parseArgs } from 'node:util';
import { type ReconcileDifference, reconcile } from '../server/fulfilment/reconciliation.js';
import { DEFAULT_RETENTION_MS, type Journal } from '../server/journal/journal.js';
import { openJournal } from '../server/journal/open-journal.js';
import { createServiceClient } from '../server/service-client/service-client.js';
import { EXIT, UsageError } from './usage-error.js';

/** `pay-checkout reconcile --help`. */
export const RECONCILE_HELP = `Usage: pay-checkout reconcile --journal <url> [--since <date>]

Pages through the payments service's orders and lists every difference with
the relay's order journal, one line each:

  paid-not-delivered   paid at the service, not delivered to onPaid (pending,
                       still owed, or settled otherwise in the journal)
  delivered-not-paid   delivered to onPaid, not paid at the service
  unknown-to-journal   at the service, not in the journal

Each difference is confirmed by a lookup of the order. The journal is read as
it is, never migrated: one at another version than this pay-checkout's is
refused (exit 1). Order ids and statuses
only: no customer's name or number is printed. Exit 0 when there is no
difference, 1 when there is any (or the service or journal failed), 2 for
bad arguments.

Environment (as the relay reads it):
  PAY_API_BASE_URL   the payments service's base URL (required)
  PAY_SECRET_KEY     the service's secret key (required; never on the command line)

Options:
  --journal <url>    the relay's journal: sqlite:<path> or postgres://… (required)
  --since <date>     from when, as an ISO 8601 date or time (default 30 days ago,
                     the journal's default retention)
  -h, --help         this text
`;

/** The label of each kind of difference, as printed. */
const LABELS: Readonly<Record<ReconcileDifference['kind'], string>> = {
  paid_not_delivered: 'paid-not-delivered',
  delivered_not_paid: 'delivered-not-paid',
  unknown_to_journal: 'unknown-to-journal',
};

/** Runs the reconciliation; resolves to the exit code. */
export async function runReconcile(args: readonly string[], print: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      journal: { type: 'string' },
      since: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    print(RECONCILE_HELP);
    return EXIT.ok;
  }
  if (!values.journal) throw new UsageError('give the journal: --journal sqlite:<path> or postgres://…');
  const now = Date.now();
  const since = sinceOf(values.since, now);
  const client = createServiceClient(serviceFromEnvironment());
  let journal: Journal;
  try {
    // As it is: a reconciliation reads the relay's journal and never migrates it under the fleet.
    journal = await openJournal(values.journal, { migrate: false });
  } catch (error) {
    process.stderr.write(`pay-checkout reconcile: ${(error as Error).message}\n`);
    return EXIT.failed;
  }
  try {
    const found = await reconcile(client, journal, { since, now });
    for (const difference of found.differences) print(lineOf(difference));
    const count = found.differences.length;
    print(
      `${count === 0 ? 'No difference' : `${count} difference${count === 1 ? '' : 's'}`} between the service and the journal since ${new Date(since).toISOString()} (${found.serviceOrders} orders at the service, ${found.journalOrders} in the journal).`,
    );
    return count === 0 ? EXIT.ok : EXIT.failed;
  } catch (error) {
    process.stderr.write(`pay-checkout reconcile: ${(error as Error).message}\n`);
    return EXIT.failed;
  } finally {
    await journal.close();
  }
}

/** `--since` as epoch ms; 30 days before `now` when absent. */
function sinceOf(value: string | undefined, now: number): number {
  if (value === undefined) return now - DEFAULT_RETENTION_MS;
  const since = Date.parse(value);
  if (Number.isNaN(since)) {
    throw new UsageError(
      `--since must be an ISO 8601 date or time, such as 2026-11-01; got ${JSON.stringify(value)}.`,
    );
  }
  return since;
}

/** The service's base URL and key from the environment, or a {@link UsageError} naming the one missing. */
function serviceFromEnvironment(): { baseUrl: string; secretKey: string } {
  const baseUrl = process.env.PAY_API_BASE_URL;
  const secretKey = process.env.PAY_SECRET_KEY;
  if (!baseUrl) throw new UsageError("set PAY_API_BASE_URL to the payments service's base URL.");
  if (!secretKey) throw new UsageError("set PAY_SECRET_KEY to the service's secret key.");
  return { baseUrl, secretKey };
}

/** One difference as printed: its label, the order id, and what each side says. */
function lineOf(difference: ReconcileDifference): string {
  const label = LABELS[difference.kind].padEnd(20);
  switch (difference.kind) {
    case 'paid_not_delivered':
      return `${label} ${difference.orderId}  service: paid  journal: ${difference.journalOutcome}${difference.delivered ? ', delivered' : ''}`;
    case 'delivered_not_paid':
      return `${label} ${difference.orderId}  service: ${difference.serviceStatus}  journal: paid, delivered`;
    default:
      return `${label} ${difference.orderId}  service: ${difference.serviceStatus}  journal: none`;
  }
}
