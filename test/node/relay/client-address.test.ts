/**
 * The client address: the peer by default; behind the proxies the
 * merchant names (`trustProxy`), the rightmost forwarded address none of them
 * is. Forged entries never move a shopper's bucket, and with no address at
 * all no two shoppers share one.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { listen, type RunningServer } from '../../../src/http/node/index.js';
import type { CheckoutRelayOptions } from '../../../src/server/index.js';
import { recordingStore } from '../../fixtures/recording-store.js';
import { createRequest, intent, relayStack } from '../../fixtures/relay.js';

const { events, relayWith } = relayStack();
const servers: RunningServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** The client key the relay charged for one create from `peer` with `headers`. */
async function chargedKey(
  options: Partial<CheckoutRelayOptions>,
  peer: string | undefined,
  headers: Record<string, string> = {},
): Promise<string | undefined> {
  const store = recordingStore();
  const rateLimit = { ...(options.rateLimit || {}), store, promptsPerNumber: false as const };
  const relay = relayWith({ ...options, rateLimit });
  await relay.create(
    createRequest(intent({ customer_data: {} }), { headers }),
    peer === undefined ? undefined : { clientAddress: peer },
  );
  return store.keys[0]?.replace(/^create:/, '');
}

describe('the client address of the relay’s limits', () => {
  it('is the peer, whatever forwarding headers say, when no proxy is trusted', async () => {
    const forged = { 'x-forwarded-for': '203.0.113.50', forwarded: 'for=203.0.113.51' };
    assert.equal(await chargedKey({}, '198.51.100.7', forged), '198.51.100.7');
  });

  it('behind one proxy (trustProxy: 1), is the address that proxy appended, not the forged ones', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.50, 192.0.2.99, 198.51.100.7' };
    assert.equal(await chargedKey({ trustProxy: 1 }, '10.0.0.2', headers), '198.51.100.7');
    assert.equal(await chargedKey({ trustProxy: 2 }, '10.0.0.2', headers), '192.0.2.99');
    // The header is missing (the proxy was bypassed, or does not write it): the nearest address known.
    assert.equal(await chargedKey({ trustProxy: 1 }, '10.0.0.2'), '10.0.0.2');
  });

  it('behind trusted ranges, walks past every trusted hop to the first untrusted one', async () => {
    const trustProxy = ['10.0.0.0/8', 'loopback'];
    const headers = { 'x-forwarded-for': '203.0.113.50, 198.51.100.7, 10.1.2.3, 127.0.0.1' };
    assert.equal(await chargedKey({ trustProxy }, '10.0.0.2', headers), '198.51.100.7');
    // A peer outside the ranges is the client itself: its header is its own word.
    assert.equal(await chargedKey({ trustProxy }, '192.0.2.44', headers), '192.0.2.44');
    // IPv4-mapped IPv6 peers (dual-stack sockets) match IPv4 ranges.
    assert.equal(await chargedKey({ trustProxy }, '::ffff:10.0.0.2', headers), '198.51.100.7');
  });

  it('reads IPv6 and keys it by its /64, so rotating addresses in one network buys no allowance', async () => {
    const trustProxy = ['fd00::/8'];
    const from = (address: string) => chargedKey({ trustProxy }, 'fd00::2', { 'x-forwarded-for': address });
    assert.equal(await from('2001:db8:1:2::5'), '2001:db8:1:2::/64');
    assert.equal(await from('2001:DB8:1:2:ffff:1:2:3'), '2001:db8:1:2::/64');
    assert.equal(await from('[2001:db8:1:3::5]:443'), '2001:db8:1:3::/64');
    assert.equal(await chargedKey({}, '2001:db8:9:9::1'), '2001:db8:9:9::/64');
  });

  it('reads Forwarded when the proxies write it, and then ignores X-Forwarded-For', async () => {
    const trustProxy = { proxies: 1, header: 'forwarded' as const };
    const headers = {
      forwarded: 'for=203.0.113.50, for="[2001:db8:cafe::17]:4711";proto=https',
      'x-forwarded-for': '192.0.2.1',
    };
    assert.equal(await chargedKey({ trustProxy }, '10.0.0.2', headers), '2001:db8:cafe:0::/64');
    // An entry that is no address stops the walk at the proxy that wrote it.
    const unknown = { forwarded: 'for=198.51.100.7, for=unknown' };
    assert.equal(
      await chargedKey({ trustProxy: { ...trustProxy, proxies: 2 } }, '10.0.0.2', unknown),
      '10.0.0.2',
    );
  });

  it('applies trustProxy to the address a merchant’s clientAddress gives (Hono’s getConnInfo)', async () => {
    const options = { trustProxy: 1, rateLimit: { clientAddress: () => '10.0.0.2' } };
    const headers = { 'x-forwarded-for': '203.0.113.50, 198.51.100.7' };
    assert.equal(await chargedKey(options, undefined, headers), '198.51.100.7');
  });

  it('with a hop count and no peer from the runtime, is the entry the hops appended', async () => {
    // relay.handle(request) with no connection: the nearest proxy is the unknown peer, trusted as hop one.
    const headers = { 'x-forwarded-for': '203.0.113.50, 192.0.2.99, 198.51.100.7' };
    assert.equal(await chargedKey({ trustProxy: 1 }, undefined, headers), '198.51.100.7');
    assert.equal(await chargedKey({ trustProxy: 2 }, undefined, headers), '192.0.2.99');
    const forwarded = { forwarded: 'for=203.0.113.50, for="[2001:db8:cafe::17]:4711"' };
    const trustForwarded = { proxies: 1, header: 'forwarded' as const };
    assert.equal(
      await chargedKey({ trustProxy: trustForwarded }, undefined, forwarded),
      '2001:db8:cafe:0::/64',
    );
    // No header, an entry that is no address, no hop trusted, or proxies named by address (the unknown
    // peer cannot be told to be one of them): no client address, as without trustProxy.
    assert.equal(await chargedKey({ trustProxy: 1 }, undefined), undefined);
    assert.equal(
      await chargedKey({ trustProxy: 1 }, undefined, { 'x-forwarded-for': '1.2.3.4, junk' }),
      undefined,
    );
    assert.equal(await chargedKey({ trustProxy: 0 }, undefined, headers), undefined);
    assert.equal(await chargedKey({ trustProxy: ['10.0.0.0/8'] }, undefined, headers), undefined);
  });

  it('with trustProxy: 1 and no peer, 40 creates with a rotating forged left entry are one client', async () => {
    events.length = 0;
    const relay = relayWith({ trustProxy: 1, rateLimit: { promptsPerNumber: false } });
    const statuses: number[] = [];
    for (let index = 0; index < 40; index++) {
      const headers = { 'x-forwarded-for': `203.0.${index}.${index + 1}, 198.51.100.7` };
      const answer = await relay.handle(createRequest(intent({ customer_data: {} }), { headers }));
      statuses.push(answer.status);
    }
    assert.deepEqual(statuses, [...new Array(10).fill(400), ...new Array(30).fill(429)]);
    assert.ok(!events.some((event) => event.type === 'warning'), 'no warning: the address is known');
  });

  it('refuses a trustProxy it cannot read, at startup', () => {
    for (const trustProxy of [-1, 1.5, 33, ['10.0.0.0/33'], ['not-an-address'], ['10.0.0.1/8/8'], [7]]) {
      assert.throws(
        () => relayWith({ trustProxy: trustProxy as never }),
        /trustProxy/,
        JSON.stringify(trustProxy),
      );
    }
    assert.throws(() => relayWith({ trustProxy: { proxies: 1, header: 'x-real-ip' as never } }), /header/);
  });

  it('with no address known, never puts every shopper in one bucket', async () => {
    events.length = 0;
    const relay = relayWith({ rateLimit: { create: { capacity: 2, refillPerMinute: 1 } } });
    const statuses: number[] = [];
    for (let shopper = 0; shopper < 20; shopper++) {
      statuses.push((await relay.create(createRequest(intent({ customer_data: {} })))).status);
    }
    assert.deepEqual(new Set(statuses), new Set([400]), 'no shopper is refused for the others');
    const warnings = events.filter((event) => event.type === 'warning');
    assert.deepEqual(
      warnings.map((event) => event.type === 'warning' && event.code),
      ['rate_limit_no_client_address'],
    );
  });

  it('over real HTTP: forged X-Forwarded-For from one peer is one client, with or without trustProxy', async () => {
    for (const trustProxy of [undefined, 1]) {
      const relay = relayWith({
        rateLimit: { create: { capacity: 3, refillPerMinute: 1 }, promptsPerNumber: false },
        ...(trustProxy === undefined ? {} : { trustProxy: ['10.0.0.0/8'] }),
      });
      const server = await listen(relay.node);
      servers.push(server);
      const statuses: number[] = [];
      for (let index = 0; index < 8; index++) {
        const response = await fetch(`${server.url}/api/checkout/orders`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': crypto.randomUUID(),
            'x-forwarded-for': `203.0.113.${index}`,
          },
          body: JSON.stringify(intent({ customer_data: {} })),
        });
        statuses.push(response.status);
        await response.arrayBuffer();
      }
      // The loopback peer is no trusted proxy: every request is its own, one bucket of 3.
      assert.deepEqual(statuses, [400, 400, 400, 429, 429, 429, 429, 429], String(trustProxy));
    }
  });
});
