/**
 * One webhook attempt against a real receiver on 127.0.0.1: what it answers
 * is what the journal keeps (status, duration, Retry-After, error). Loopback
 * is reachable only where private targets are allowed; otherwise a name
 * that resolves to 127.0.0.1 and literal private addresses are refused
 * before a byte is sent, and the error says why. A 3xx is not followed, and
 * a receiver that never answers is cut at the limit.
 */
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { createGuardedLookup } from '../../../src/server/webhooks/guarded-lookup.js';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../../src/server/webhooks/retry-after.js';
import { refusedAddressKind } from '../../../src/server/webhooks/target-address.js';
import { sendWebhook } from '../../../src/server/webhooks/webhook-sender.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const received: Received[] = [];
const hanging = new Set<ServerResponse>();

/** The receiver: each path answers one way. */
function answer(request: IncomingMessage, response: ServerResponse, body: string): void {
  received.push({ path: request.url ?? '', headers: request.headers, body });
  if (request.url === '/ok') return void response.writeHead(204).end();
  if (request.url === '/moved') return void response.writeHead(302, { location: '/ok' }).end();
  if (request.url === '/busy') return void response.writeHead(503, { 'retry-after': '120' }).end('busy');
  if (request.url === '/gone') return void response.writeHead(410).end();
  hanging.add(response); // '/hang': headers never come
}

let server: Server;
let port: number;

before(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => answer(request, response, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  for (const response of hanging) response.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const BODY = '{"type":"ping","timestamp":"2026-11-28T08:00:00.000Z","data":{}}';
const HEADERS = { 'webhook-id': 'msg_x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };
const ALLOWED = { allowPrivateTargets: true };

/** Names this machine resolves to a loopback address: `localhost`, and its own host name where it does. */
async function loopbackNames(): Promise<string[]> {
  const names = ['localhost'];
  const own = await lookup(hostname(), { all: true }).catch(() => []);
  if (own.length > 0 && own.every((entry) => refusedAddressKind(entry.address) === 'loopback'))
    names.push(hostname());
  return names;
}

describe('sending one webhook', () => {
  it('posts the body and headers to an allowed receiver and answers its status', async () => {
    const result = await sendWebhook(
      { url: `http://127.0.0.1:${port}/ok`, headers: HEADERS, body: BODY },
      ALLOWED,
    );
    assert.equal(result.status, 204);
    assert.equal(result.error, null);
    assert.equal(result.retryAfterMs, null);
    assert.ok(result.durationMs >= 0);
    const delivery = received.at(-1);
    assert.equal(delivery?.body, BODY);
    assert.equal(delivery?.headers['webhook-id'], 'msg_x');
    assert.equal(delivery?.headers['content-type'], 'application/json');
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const before = received.length;
    const result = await sendWebhook(
      { url: `http://127.0.0.1:${port}/moved`, headers: HEADERS, body: BODY },
      ALLOWED,
    );
    assert.equal(result.status, 302);
    assert.match(result.error ?? '', /redirect not followed/);
    assert.deepEqual(
      received.slice(before).map((delivery) => delivery.path),
      ['/moved'],
    );
  });

  it('answers a failed status with the wait its Retry-After asks for', async () => {
    const busy = await sendWebhook(
      { url: `http://127.0.0.1:${port}/busy`, headers: HEADERS, body: BODY },
      ALLOWED,
    );
    assert.deepEqual([busy.status, busy.retryAfterMs, busy.error], [503, 120_000, null]);
    const gone = await sendWebhook(
      { url: `http://127.0.0.1:${port}/gone`, headers: HEADERS, body: BODY },
      ALLOWED,
    );
    assert.deepEqual([gone.status, gone.retryAfterMs], [410, null]);
  });

  it('cuts a receiver that never answers at the limit', async () => {
    const url = `http://127.0.0.1:${port}/hang`;
    const result = await sendWebhook({ url, headers: HEADERS, body: BODY }, { ...ALLOWED, timeoutMs: 200 });
    assert.equal(result.status, null);
    assert.match(result.error ?? '', /no answer within 200 ms/);
  });

  it('refuses names that resolve to loopback unless private targets are allowed, and says why', async () => {
    for (const name of await loopbackNames()) {
      const before = received.length;
      const result = await sendWebhook({ url: `http://${name}:${port}/ok`, headers: HEADERS, body: BODY });
      assert.equal(result.status, null, name);
      assert.equal(result.error, `target refused: ${name} resolves to 127.0.0.1, a loopback address`);
      assert.equal(received.length, before, 'nothing reached the receiver');
      const allowed = await sendWebhook(
        { url: `http://${name}:${port}/ok`, headers: HEADERS, body: BODY },
        ALLOWED,
      );
      assert.equal(allowed.status, 204, name);
    }
  });

  it('refuses literal private, loopback, link-local and mapped addresses before connecting', async () => {
    const before = received.length;
    const refused: Record<string, string> = {
      [`http://127.0.0.1:${port}/ok`]: '127.0.0.1 is a loopback address',
      [`http://[::ffff:127.0.0.1]:${port}/ok`]: '::ffff:7f00:1 is a loopback address',
      [`http://[::1]:${port}/ok`]: '::1 is a loopback address',
      'http://169.254.169.254/latest/meta-data/': '169.254.169.254 is a link-local address',
      'http://10.0.0.8/hook': '10.0.0.8 is a private address',
      'http://192.168.1.1/hook': '192.168.1.1 is a private address',
      'http://100.64.0.1/hook': '100.64.0.1 is a shared (CGNAT) address',
      'http://0.0.0.0/hook': '0.0.0.0 is an unspecified address',
      'http://[fd00::1]/hook': 'fd00::1 is a private address',
      'http://[fe80::1]/hook': 'fe80::1 is a link-local address',
      // The URL parser reads these hosts as IPv4 addresses, as a browser or curl would.
      [`http://2130706433:${port}/ok`]: '127.0.0.1 is a loopback address',
      [`http://0x7f.1:${port}/ok`]: '127.0.0.1 is a loopback address',
    };
    for (const [url, why] of Object.entries(refused)) {
      const result = await sendWebhook({ url, headers: HEADERS, body: BODY });
      assert.deepEqual([result.status, result.error], [null, `target refused: ${why}`], url);
    }
    assert.equal(received.length, before);
  });

  it('never throws: a URL that is not one, or not http, is an attempt that failed', async () => {
    for (const url of ['not a url', 'ftp://example.com/hook', 'file:///etc/passwd']) {
      const result = await sendWebhook({ url, headers: HEADERS, body: BODY });
      assert.equal(result.status, null);
      assert.match(result.error ?? '', /^target refused/);
    }
  });
});

describe('the guarded lookup', () => {
  it('connects to the address it checked, and checks again for each new connection (no DNS rebinding)', async () => {
    // A name that answers 127.0.0.1 first, then 127.0.0.2, and a rule under which only 127.0.0.2 is
    // refused: the first connection reaches the receiver on 127.0.0.1 after one resolution; the next
    // one, with the name rebound, is refused by the same lookup that would have handed it over.
    const answers = ['127.0.0.1', '127.0.0.2'];
    let resolutions = 0;
    const lookup = createGuardedLookup({
      resolve: async () => [{ address: answers[Math.min(resolutions++, 1)] as string, family: 4 }],
      refusedKind: (address) => (address === '127.0.0.2' ? 'loopback' : null),
    });
    const agent = new Agent({ connect: { lookup }, pipelining: 0 });
    try {
      const send = () =>
        request(`http://rebinding.test:${port}/ok`, {
          method: 'POST',
          body: BODY,
          dispatcher: agent,
          reset: true,
        });
      const first = await send();
      await first.body.dump();
      assert.deepEqual([first.statusCode, resolutions], [204, 1]);
      await assert.rejects(
        send(),
        /target refused: rebinding\.test resolves to 127\.0\.0\.2, a loopback address/,
      );
      assert.equal(resolutions, 2);
    } finally {
      await agent.close();
    }
  });
});

describe('the address rules', () => {
  it('let public addresses through and judge IPv6 forms by the IPv4 address they carry', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1']) {
      assert.equal(refusedAddressKind(address), null, address);
    }
    const expected: Record<string, string> = {
      '::': 'unspecified',
      '::ffff:10.1.2.3': 'private',
      '64:ff9b::a9fe:a9fe': 'link-local',
      '2002:c0a8:0101::1': 'private',
      'ff02::1': 'multicast',
      '224.0.0.251': 'multicast',
      '240.0.0.1': 'reserved',
      '255.255.255.255': 'reserved',
      '198.18.0.1': 'reserved',
    };
    for (const [address, kind] of Object.entries(expected))
      assert.equal(refusedAddressKind(address), kind, address);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-28T08:00:00Z');

  it('reads delay-seconds and HTTP-dates, held between one second and one day', () => {
    assert.equal(parseRetryAfter('30', now), 30_000);
    assert.equal(parseRetryAfter('0', now), 1000);
    assert.equal(parseRetryAfter('999999', now), MAX_RETRY_AFTER_MS);
    assert.equal(parseRetryAfter('Sat, 28 Nov 2026 08:02:00 GMT', now), 120_000);
    assert.equal(parseRetryAfter('Fri, 27 Nov 2026 08:00:00 GMT', now), 1000);
    assert.equal(parseRetryAfter('Sat, 05 Dec 2026 08:00:00 GMT', now), MAX_RETRY_AFTER_MS);
  });

  it('is null when absent or unreadable', () => {
    for (const value of [undefined, null, '', 'soon', '-5', '1.5', 'Mon, 99 Foo 2026'])
      assert.equal(parseRetryAfter(value, now), null);
  });
});
