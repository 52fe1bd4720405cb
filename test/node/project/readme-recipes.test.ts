/**
 * The client-address recipes of docs/security.md are these
 * files, word for word (but for the package's import path), and each one
 * keeps shoppers apart the way it says: a flood from one shopper is limited
 * at the default 10 creates, another shopper is not, and what the client
 * forged in a header moves nothing.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serve } from '@hono/node-server';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/index.js';
import { blockAfter, readPage } from '../../fixtures/doc-blocks.js';
import { type RedisServer, redisSkipReason, startRedis } from '../../fixtures/redis.js';
import { intent, LOOKUP_SECRET, SECRET } from '../../fixtures/relay.js';

const RECIPES = ['express', 'hono', 'nextjs', 'nginx', 'edge', 'fleet'] as const;
const SECURITY_PAGE = readPage('docs/security.md');
const refused = JSON.stringify(intent({ customer_data: {} }));

/** A create the relay refuses (400) once it has counted it, so no order is made. */
function createRequest(url: string, headers: Record<string, string> = {}): Request {
  return new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...headers },
    body: refused,
  });
}

/** Statuses of `count` creates, each with the headers `headersOf(index)` gives. */
async function flood(
  send: (request: Request) => Promise<Response> | Response,
  url: string,
  count: number,
  headersOf: (index: number) => Record<string, string>,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index++) {
    const response = await send(createRequest(url, headersOf(index)));
    statuses.push(response.status);
    await response.arrayBuffer();
  }
  return statuses;
}

const TEN_THEN_REFUSED = [...new Array(10).fill(400), 429];

function listening(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

describe('the client-address recipes of docs/security.md', () => {
  let sandbox: RunningSandbox;
  let redis: RedisServer | undefined;
  const servers: { close(): unknown }[] = [];

  before(async () => {
    sandbox = await startSandbox({ approveAfterMs: 60_000 });
    process.env.PAY_SECRET_KEY = SECRET;
    process.env.PAY_API_BASE_URL = sandbox.url;
    process.env.PAY_LOOKUP_SECRET = LOOKUP_SECRET;
    if (!redisSkipReason()) {
      redis = await startRedis();
      process.env.REDIS_URL = redis.url;
    }
  });
  after(async () => {
    for (const server of servers) server.close();
    await sandbox?.close();
    await redis?.stop();
  });

  it('are in docs/security.md word for word', () => {
    for (const name of RECIPES) {
      const file = readFileSync(new URL(`../../recipes/${name}.ts`, import.meta.url), 'utf8');
      const shown = file.replaceAll("'../../src/server/node.js'", "'pay-checkout/server'");
      const block = blockAfter(SECURITY_PAGE, `recipe: test/recipes/${name}.ts -->`);
      assert.equal(block, shown, `docs/security.md block of test/recipes/${name}.ts`);
    }
  });

  it('Express behind one proxy: the address the proxy appended, not the forged ones', async () => {
    const { app } = await import('../../recipes/express.js');
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/checkout/orders`;
    const send = (request: Request) => fetch(request);
    const shopper = (index: number) => ({ 'x-forwarded-for': `203.0.113.${index}, 198.51.100.7` });
    assert.deepEqual(await flood(send, url, 11, shopper), TEN_THEN_REFUSED);
    assert.deepEqual(await flood(send, url, 1, () => ({ 'x-forwarded-for': '198.51.100.8' })), [400]);
  });

  it('Hono on @hono/node-server: the socket’s peer through getConnInfo, whatever the client forged', async () => {
    const { app } = await import('../../recipes/hono.js');
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    servers.push(server);
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/checkout/orders`;
    const forged = (index: number) => ({ 'x-forwarded-for': `203.0.113.${index}` });
    assert.deepEqual(await flood((request) => fetch(request), url, 11, forged), TEN_THEN_REFUSED);
  });

  it('Next.js: x-real-ip as the platform sets it', async () => {
    const { POST } = await import('../../recipes/nextjs.js');
    const url = 'https://shop.example/api/checkout/orders';
    assert.deepEqual(await flood(POST, url, 11, () => ({ 'x-real-ip': '198.51.100.9' })), TEN_THEN_REFUSED);
    assert.deepEqual(await flood(POST, url, 1, () => ({ 'x-real-ip': '198.51.100.10' })), [400]);
  });

  it('a Node server behind nginx: the address nginx appended', async () => {
    const { server } = await import('../../recipes/nginx.js');
    servers.push(server);
    const url = `${await listening(server)}/api/checkout/orders`;
    const shopper = (index: number) => ({ 'x-forwarded-for': `10.9.9.${index}, 198.51.100.11` });
    assert.deepEqual(await flood((request) => fetch(request), url, 11, shopper), TEN_THEN_REFUSED);
    assert.deepEqual(
      await flood(
        (request) => fetch(request),
        url,
        1,
        () => ({ 'x-forwarded-for': '198.51.100.12' }),
      ),
      [400],
    );
  });

  it('an edge runtime (a Cloudflare Worker): cf-connecting-ip', async () => {
    const worker = (await import('../../recipes/edge.js')).default;
    const url = 'https://shop.example/api/checkout/orders';
    const send = (request: Request) => worker.fetch(request);
    assert.deepEqual(
      await flood(send, url, 11, () => ({ 'cf-connecting-ip': '198.51.100.13' })),
      TEN_THEN_REFUSED,
    );
    assert.deepEqual(await flood(send, url, 1, () => ({ 'cf-connecting-ip': '198.51.100.14' })), [400]);
  });

  it('a fleet on Redis behind one proxy', { skip: redisSkipReason() }, async () => {
    const { relay, closeRedis } = await import('../../recipes/fleet.js');
    const url = 'https://shop.example/api/checkout/orders';
    const send = (request: Request) => relay.handle(request, { clientAddress: '10.0.0.2' });
    const shopper = () => ({ 'x-forwarded-for': '198.51.100.15' });
    assert.deepEqual(await flood(send, url, 11, shopper), TEN_THEN_REFUSED);
    await closeRedis();
  });
});
