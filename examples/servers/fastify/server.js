import Fastify from 'fastify';
import { port, relay, sandbox } from '../shop.js';

const app = Fastify();
// A scope whose routes Fastify parses no body of: the relay and the sandbox read it themselves
// from Node's request, and answer on Node's response.
await app.register(async (scope) => {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _body, done) => done(null));
  scope.all('/api/checkout/*', (request, reply) => {
    reply.hijack();
    relay.node(request.raw, reply.raw);
  });
  scope.all('/sandbox/*', (request, reply) => {
    reply.hijack();
    sandbox.node(request.raw, reply.raw);
  });
});

await app.listen({ port, host: '127.0.0.1' });
console.log(`Shop on http://127.0.0.1:${port}`);
