/**
 * The light JSON answer the Node listener writes without a web `Response`
 * (src/http/node/light-response.ts): on the wire it is the answer
 * `jsonResponse` makes, headers and all; in the handler's hands it behaves as
 * a `Response` in every standard use; and an answer to any request the Node
 * listener did not make is a real `Response`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonAnswer } from '../../../src/http/json-response.js';
import { lightAnswerOf } from '../../../src/http/node/light-response.js';
import { listen, toNodeListener } from '../../../src/server/index.js';

/** Serves `handler` on loopback, posts to it once, and closes. */
async function served(handler: (request: Request) => Promise<Response>): Promise<Response> {
  const server = await listen(toNodeListener(handler));
  try {
    const answer = await fetch(`${server.url}/lookup`, { method: 'POST', body: '{}' });
    await answer.clone().arrayBuffer();
    return answer;
  } finally {
    await server.close();
  }
}

describe('a light JSON answer', () => {
  it('reaches the client as jsonResponse would send it: status, JSON headers, length, body', async () => {
    const answer = await served(async (request) => jsonAnswer(request, { order: { id: 'or_1' } }, 201));
    assert.equal(answer.status, 201);
    assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(answer.headers.get('content-length'), String('{"order":{"id":"or_1"}}'.length));
    assert.deepEqual(await answer.json(), { order: { id: 'or_1' } });
  });

  it('carries headers a handler adds on the way, as a Response would', async () => {
    const answer = await served(async (request) => {
      const light = jsonAnswer(request, { ok: true });
      light.headers.set('vary', 'Origin');
      assert.ok(lightAnswerOf(light), 'still written light');
      return light;
    });
    assert.equal(answer.headers.get('vary'), 'Origin');
    assert.equal(answer.headers.get('cache-control'), 'no-store');
  });

  it('is a Response in the handler’s hands: status, body, clone, a body read once', async () => {
    await served(async (request) => {
      const light = jsonAnswer(request, { a: 1 });
      assert.ok(light instanceof Response);
      assert.equal(light.status, 200);
      assert.equal(light.ok, true);
      assert.equal(light.statusText, '');
      assert.equal(light.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(await light.clone().text(), '{"a":1}');
      assert.deepEqual(await new Response(light.body, light).json(), { a: 1 });
      assert.equal(light.bodyUsed, true);
      const read = jsonAnswer(request, { b: 2 });
      assert.deepEqual(await read.json(), { b: 2 });
      assert.equal(read.bodyUsed, true);
      await assert.rejects(read.text(), TypeError);
      assert.equal(lightAnswerOf(read), undefined, 'a used answer is not written light');
      return jsonAnswer(request, {});
    });
  });

  it('is a real Response for a request the Node listener did not make', async () => {
    const answer = jsonAnswer(new Request('https://shop.example/lookup', { method: 'POST' }), { a: 1 });
    assert.equal(lightAnswerOf(answer), undefined);
    assert.equal(Object.getPrototypeOf(answer), Response.prototype);
    assert.deepEqual(await answer.json(), { a: 1 });
  });
});
