/**
 * The prompt limit: at most 3 payment prompts to one mobile-money number
 * in 10 minutes, whoever sends them, so the checkout is never a tool for
 * flooding a stranger's phone with approval prompts. The number itself is
 * never a key: stores see an HMAC of it.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { EN_STRINGS } from '../../../src/element/locale/en.js';
import { FR_STRINGS } from '../../../src/element/locale/fr.js';
import { listen, type RunningServer } from '../../../src/http/node/index.js';
import { customerPayingFrom, LOCAL_NUMBER } from '../../fixtures/checkout-data.js';
import { recordingStore } from '../../fixtures/recording-store.js';
import { createRequest, errorOf, intent, relayStack } from '../../fixtures/relay.js';
import { clockReading } from '../../fixtures/relay-clock.js';

const { sandbox, events, relayWith } = relayStack();
const servers: RunningServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

const STRANGER = '0209876543';
const PROMPT_PARAM = 'payment_method_data.mobile_money.number';

describe('the payment-prompt limit per number', () => {
  it('20 creates for one number from 20 addresses: 3 prompts, then 429 with Retry-After', async () => {
    const relay = relayWith();
    const before = sandbox.createdOrderCount;
    const answers: Response[] = [];
    for (let address = 1; address <= 20; address++) {
      const request = createRequest(intent(customerPayingFrom(STRANGER)));
      answers.push(await relay.create(request, { clientAddress: `198.51.100.${address}` }));
    }
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, ...new Array(17).fill(429)],
    );
    assert.equal(sandbox.createdOrderCount - before, 3, 'three prompts reached the phone');
    for (const refused of answers.slice(3)) {
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter > 590 && retryAfter <= 600, `Retry-After ${retryAfter}`);
      const error = await errorOf(refused);
      assert.equal(error.code, 'too_many_payment_requests');
      assert.equal(error.type, 'rate_limit_error');
      assert.equal(error.param, PROMPT_PARAM);
      assert.equal(
        error.message,
        'Too many payment requests to this number: approve the one on your phone or wait 10 minutes.',
      );
    }
    // Another number is another window.
    const other = await relay.create(createRequest(intent(customerPayingFrom('0209876544'))), {
      clientAddress: '198.51.100.1',
    });
    assert.equal(other.status, 200);
  });

  it('counts an attempt once: a retry with the same Idempotency-Key is no new prompt', async () => {
    const relay = relayWith({ rateLimit: { promptsPerNumber: { limit: 1, windowMinutes: 10 } } });
    const key = crypto.randomUUID();
    const body = intent(customerPayingFrom('0209876545'));
    const first = await relay.create(createRequest(body, { key }), { clientAddress: '198.51.100.1' });
    const retry = await relay.create(createRequest(body, { key }), { clientAddress: '203.0.113.1' });
    const second = await relay.create(createRequest(body), { clientAddress: '198.51.100.1' });
    assert.deepEqual([first.status, retry.status, second.status], [200, 200, 429]);
    assert.equal(
      (await first.json()).order.id,
      (await retry.json()).order.id,
      'the retry is the same order, replayed',
    );
  });

  it('a create the service refuses (422, key reused) spends no prompt slot: no prompt went out', async () => {
    const relay = relayWith();
    const other = '0209876551';
    const keys = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    for (const key of keys) {
      const first = await relay.create(createRequest(intent(customerPayingFrom('0209876552')), { key }), {
        clientAddress: '198.51.100.1',
      });
      assert.equal(first.status, 200);
    }
    const before = sandbox.createdOrderCount;
    // Each key again, for another number: the service refuses the key's reuse with 422.
    for (const key of keys) {
      const reused = await relay.create(createRequest(intent(customerPayingFrom(other)), { key }), {
        clientAddress: '198.51.100.2',
      });
      assert.equal(reused.status, 422);
      assert.equal((await errorOf(reused)).code, 'idempotency_key_reused');
    }
    assert.equal(sandbox.createdOrderCount, before, 'no order, so no prompt');
    // The other number's owner still has their three prompts.
    const statuses: number[] = [];
    for (let index = 0; index < 4; index++) {
      const request = createRequest(intent(customerPayingFrom(other)));
      statuses.push((await relay.create(request, { clientAddress: `192.0.2.${index + 1}` })).status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });

  it('a refused retry never gives back the slot its attempt’s earlier try spent on a prompt', async () => {
    const relay = relayWith();
    const number = '0209876553';
    const key = crypto.randomUUID();
    const sent = await relay.create(createRequest(intent(customerPayingFrom(number)), { key }), {
      clientAddress: '198.51.100.1',
    });
    assert.equal(sent.status, 200, 'a prompt went out');
    // The same key and number under another name: 422, and the prompt that went out stays counted.
    const renamed = intent(customerPayingFrom(number, 'Kofi Boateng'));
    const reused = await relay.create(createRequest(renamed, { key }), { clientAddress: '198.51.100.1' });
    assert.equal(reused.status, 422);
    const statuses: number[] = [];
    for (let index = 0; index < 3; index++) {
      const request = createRequest(intent(customerPayingFrom(number)));
      statuses.push((await relay.create(request, { clientAddress: `192.0.2.${index + 1}` })).status);
    }
    assert.deepEqual(statuses, [200, 200, 429]);
  });

  it('slides: a slot comes back when its prompt is 10 minutes old', async () => {
    let now = 1_000_000_000;
    const relay = relayWith({ clock: clockReading(() => now) });
    const create = () =>
      relay.create(createRequest(intent(customerPayingFrom('0209876546'))), { clientAddress: '192.0.2.1' });
    for (let index = 0; index < 3; index++) {
      assert.equal((await create()).status, 200);
      now += 60_000;
    }
    const refused = await create();
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '420', 'the first prompt is 3 minutes old');
    assert.match((await errorOf(refused)).message, /wait 7 minutes/);
    now += 420_000;
    assert.equal((await create()).status, 200);
    assert.equal((await create()).status, 429);
  });

  it('is configurable, and off with promptsPerNumber: false or rateLimit: false', async () => {
    const tight = relayWith({ rateLimit: { promptsPerNumber: { limit: 1, windowMinutes: 1 } } });
    const statuses = async (relay: ReturnType<typeof relayWith>, number: string) => {
      const out: number[] = [];
      for (let index = 0; index < 4; index++) {
        const request = createRequest(intent(customerPayingFrom(number)));
        out.push((await relay.create(request, { clientAddress: `192.0.2.${index}` })).status);
      }
      return out;
    };
    assert.deepEqual(await statuses(tight, '0209876547'), [200, 429, 429, 429]);
    const off = relayWith({ rateLimit: { promptsPerNumber: false } });
    assert.deepEqual(await statuses(off, '0209876548'), [200, 200, 200, 200]);
    assert.deepEqual(await statuses(relayWith({ rateLimit: false }), '0209876549'), [200, 200, 200, 200]);
    assert.throws(
      () => relayWith({ rateLimit: { promptsPerNumber: { limit: 0, windowMinutes: 1 } } }),
      /promptsPerNumber/,
    );
  });

  it('keys the window by an HMAC of the number: no store and no event holds the number', async () => {
    const store = recordingStore();
    events.length = 0;
    const relay = relayWith({ rateLimit: { store, promptsPerNumber: { limit: 1, windowMinutes: 10 } } });
    await relay.create(createRequest(intent()), { clientAddress: '192.0.2.7' });
    const promptKeys = store.keys.filter((key) => key.startsWith('prompt:'));
    assert.equal(promptKeys.length, 1);
    assert.match(promptKeys[0] as string, /^prompt:[A-Za-z0-9_-]{43}$/);
    const national = LOCAL_NUMBER.slice(1);
    assert.ok(store.keys.every((key) => !key.includes(national)));
    // Another relay secret, another key: a stolen store cannot be matched against a list of numbers.
    const other = recordingStore();
    await relayWith({ lookupSecret: 'another-lookup-secret-0123456789', rateLimit: { store: other } }).create(
      createRequest(intent()),
      { clientAddress: '192.0.2.7' },
    );
    assert.notEqual(
      other.keys.find((key) => key.startsWith('prompt:')),
      promptKeys[0],
    );
  });

  it('reads the same in the element, in English and in French', async () => {
    const relay = relayWith({ rateLimit: { promptsPerNumber: { limit: 1, windowMinutes: 1 } } });
    const create = () =>
      relay.create(createRequest(intent(customerPayingFrom('0209876550'))), { clientAddress: '192.0.2.1' });
    await create();
    const { message } = await errorOf(await create());
    assert.equal(EN_STRINGS.numberTooManyPrompts(1), message);
    assert.equal(
      FR_STRINGS.numberTooManyPrompts(10),
      'Trop de demandes de paiement vers ce numéro : approuvez celle reçue sur votre téléphone ou attendez 10 minutes.',
    );
  });

  it('over real HTTP behind a trusted proxy: 20 forwarded addresses, one number, 3 accepted', async () => {
    const relay = relayWith({ trustProxy: ['loopback'] });
    const server = await listen(relay.node);
    servers.push(server);
    const statuses: number[] = [];
    const retryAfters = new Set<string | null>();
    for (let address = 1; address <= 20; address++) {
      const response = await fetch(`${server.url}/api/checkout/orders`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': crypto.randomUUID(),
          'x-forwarded-for': `203.0.113.${address}`,
        },
        body: JSON.stringify(intent(customerPayingFrom('0551234567'))),
      });
      statuses.push(response.status);
      if (response.status === 429) retryAfters.add(response.headers.get('retry-after'));
      await response.arrayBuffer();
    }
    assert.deepEqual(statuses, [200, 200, 200, ...new Array(17).fill(429)]);
    assert.ok([...retryAfters].every((value) => Number(value) > 0));
  });
});
