/**
 * The fulfilment example of docs/fulfilment.md (test/fixtures/readme-fulfilment.ts)
 * runs as written: a real SQLite journal, the Node entry's transport, the
 * sandbox over loopback, real timers. The page must quote it exactly.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../../src/sandbox/index.js';
import { priceAnyCart } from '../fixtures/checkout-data.js';
import { startCheckoutRelay } from '../fixtures/readme-fulfilment.js';
import { createRequest, intent, LOOKUP_SECRET, SECRET } from '../fixtures/relay.js';
import { serveSandbox } from '../fixtures/sandbox.js';
import { gate, within } from '../fixtures/wait.js';

const example = fileURLToPath(new URL('../fixtures/readme-fulfilment.ts', import.meta.url));
const page = fileURLToPath(new URL('../../docs/fulfilment.md', import.meta.url));

describe('the fulfilment example of docs/fulfilment.md', () => {
  it('is quoted in docs/fulfilment.md exactly', () => {
    const source = readFileSync(example, 'utf8');
    const start = '// docs:start\n';
    const quoted = source.slice(source.indexOf(start) + start.length, source.indexOf('// docs:end'));
    assert.ok(
      readFileSync(page, 'utf8').includes(`\`\`\`ts\n${quoted}\`\`\``),
      'docs/fulfilment.md quotes test/fixtures/readme-fulfilment.ts',
    );
  });

  it('ships a paid order once, through the journal', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-readme-'));
    after(() => rmSync(scratch, { recursive: true, force: true }));
    const served = await serveSandbox(createSandbox({ approveAfterMs: 200 }));
    after(() => served.close());
    const shipped: string[] = [];
    const shippedOne = gate();
    const recorded = new Set<string>();
    const relay = await startCheckoutRelay(
      {
        PAY_SECRET_KEY: SECRET,
        PAY_API_BASE_URL: served.url,
        PAY_LOOKUP_SECRET: LOOKUP_SECRET,
        PAY_JOURNAL_URL: `sqlite:${join(scratch, 'journal.db')}`,
      },
      {
        priceCart: priceAnyCart,
        orders: {
          markPaidOnce: async (orderId) => !recorded.has(orderId) && Boolean(recorded.add(orderId)),
          release: async () => undefined,
        },
        ship: async (orderId) => {
          shipped.push(orderId);
          shippedOne.open();
        },
        alert: () => undefined,
      },
    );
    const response = await relay.create(createRequest(intent()), { clientAddress: '198.51.100.7' });
    const { order } = (await response.json()) as { order: { id: string } };
    await within('onPaid to ship the order', shippedOne.promise, 15_000);
    await relay.close();
    assert.deepEqual(shipped, [order.id]);
  });
});
