/**
 * The server recipes of docs/relay.md, "Mounting it", as a merchant runs them: examples/servers/ installed with the packed tarball
 * and each stack's own packages into one project under the system's temp
 * directory, each server started as its own process on Node 20, 22 and 24
 * (test/fixtures/node-versions.ts), then driven over real HTTP: a create, its
 * idempotent replay, the same key with another cart (422), a lookup, a forged
 * token (403), and the sandbox under its prefix approving the payment.
 *
 * Needs `npm run build` first (the `test` script runs it).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { startSandbox } from '../../src/sandbox/index.js';
import { customer } from '../fixtures/checkout-data.js';
import { blockAfter, readPage } from '../fixtures/doc-blocks.js';
import { freePort } from '../fixtures/free-port.js';
import { NODE_VERSIONS, nodeBinary } from '../fixtures/node-versions.js';
import { eventually } from '../fixtures/wait.js';
import { installWithPackage, packRepository } from './packed-package.js';
import { checkShutdownUnderTraffic } from './shutdown-traffic.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const examples = join(repositoryRoot, 'examples', 'servers');

/** Each recipe: the file docs/relay.md shows, and the file that starts it. */
const RECIPES = [
  { name: 'node-http', shown: 'node-http/server.js', entry: 'node-http/server.js' },
  { name: 'express', shown: 'express/server.js', entry: 'express/server.js' },
  { name: 'fastify', shown: 'fastify/server.js', entry: 'fastify/server.js' },
  { name: 'hono-node', shown: 'hono-node/server.js', entry: 'hono-node/server.js' },
  // A web runtime serves app.fetch; here @hono/node-server plays the runtime (serve-web-app.js).
  { name: 'hono-web', shown: 'hono-web/app.js', entry: 'serve-web-app.js' },
  // Bun and Deno are not installed here: on Node, a stand-in for Bun.serve or Deno.serve.
  { name: 'bun', shown: 'bun/server.js', entry: 'play-bun.js' },
  { name: 'deno', shown: 'deno/server.js', entry: 'play-deno.js' },
] as const;

/** The recipes that key clients on the socket's peer the runtime gives, not on any header. */
const PEER_KEYED: ReadonlySet<string> = new Set([
  'node-http',
  'express',
  'fastify',
  'hono-node',
  'bun',
  'deno',
]);

/** What docs/relay.md shows besides the recipes: the shop they mount and its priceCart. */
const SHOWN_FILES = ['shop.js', 'catalogue.js', ...RECIPES.map((recipe) => recipe.shown)];

/** Plays the web runtime for hono-web/app.js, whose own code knows no runtime. */
const SERVE_WEB_APP = `import { serve } from '@hono/node-server';
import app from './hono-web/app.js';

const port = Number(process.env.PORT);
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => console.log('Shop on http://127.0.0.1:' + port));
`;

/**
 * Plays Bun for bun/server.js on @hono/node-server: \`Bun.serve\` is listening when it returns, so
 * here the server listens first and \`Bun.serve\` hands it the app; its \`fetch\` gets a server
 * whose \`requestIP\` is the socket's peer, as Bun's is.
 */
const PLAY_BUN = `import { once } from 'node:events';
import { createAdaptorServer } from '@hono/node-server';

let app;
const server = createAdaptorServer({ fetch: (request, env) => app(request, env) });
server.listen(Number(process.env.PORT), '127.0.0.1');
await once(server, 'listening');
globalThis.Bun = {
  serve({ fetch, port, hostname }) {
    const peer = (socket) => ({ address: socket.remoteAddress, family: socket.remoteFamily, port: socket.remotePort });
    app = (request, env) => fetch(request, { requestIP: () => peer(env.incoming.socket) });
    return { port, hostname };
  },
};
await import('./bun/server.js');
`;

/**
 * Plays Deno for deno/server.js: \`Deno.serve\` on @hono/node-server, handing the handler an info
 * whose \`remoteAddr\` is the socket's peer, as Deno's is.
 */
const PLAY_DENO = `import { serve } from '@hono/node-server';

globalThis.Deno = {
  serve({ port, hostname, onListen }, handler) {
    const info = (socket) => ({
      remoteAddr: { transport: 'tcp', hostname: socket.remoteAddress, port: socket.remotePort },
    });
    serve({ fetch: (request, env) => handler(request, info(env.incoming.socket)), port, hostname }, () =>
      onListen({ hostname, port }),
    );
  },
};
await import('./deno/server.js');
`;

/** Plays the web runtime for the bundle of hono-web/app.js that a web platform's bundler makes. */
const SERVE_BUNDLED_APP = SERVE_WEB_APP.replace('./hono-web/app.js', './hono-web.bundle.js');

/** The entries that play a web runtime: the platform, not the app, holds the environment. */
const WEB_RUNTIME_ENTRIES: ReadonlySet<string> = new Set(['serve-web-app.js', 'serve-bundled-app.js']);

const LOOKUP_SECRET = 'server-recipes-lookup-secret';
/** On a web runtime the platform's edge sets the shopper's address; here the test is that edge. */
const PLATFORM_HEADERS = { 'cf-connecting-ip': '198.51.100.20' };

function readText(path: string): Promise<string> {
  return readFile(path, 'utf8');
}

/** A recipe's server, running as its own process. */
interface RunningRecipe {
  url: string;
  child: ChildProcess;
  /** What it printed, both streams. */
  output: string[];
  /** What it printed on stderr: warnings a merchant would see. */
  errors: string[];
}

/** Every process started, so none outlives the file whatever fails. */
const children = new Set<ChildProcess>();

/** Starts `entry` with `node` and resolves once it says where it listens; rejects if it exits first. */
async function startRecipe(
  node: string,
  consumer: string,
  entry: string,
  extraEnv: Record<string, string> = {},
): Promise<RunningRecipe> {
  const port = await freePort();
  const child = spawn(node, [entry], {
    cwd: consumer,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Only what a recipe reads: no PAY_* of the outer shell, and the sandbox stands in for the service.
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      PAY_LOOKUP_SECRET: LOOKUP_SECRET,
      ...(WEB_RUNTIME_ENTRIES.has(entry)
        ? { PAY_SECRET_KEY: 'sk_test_sandbox', PAY_API_BASE_URL: `http://127.0.0.1:${port}/sandbox` }
        : {}),
      ...extraEnv,
    },
  });
  children.add(child);
  const output: string[] = [];
  const errors: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output.push(chunk);
    errors.push(chunk);
  });
  const listening = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      output.push(line);
      if (line === `Shop on http://127.0.0.1:${port}`) resolve();
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`${entry} exited (${code ?? signal}) before listening:\n${output.join('\n')}`)),
    );
  });
  await listening;
  return { url: `http://127.0.0.1:${port}`, child, output, errors };
}

async function stopRecipe(recipe: RunningRecipe | undefined): Promise<void> {
  if (!recipe || recipe.child.exitCode !== null || recipe.child.signalCode !== null) return;
  const exited = once(recipe.child, 'exit');
  recipe.child.kill('SIGKILL');
  await exited;
  children.delete(recipe.child);
}

/** POSTs JSON the way the element does; answers the status and the parsed body. */
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  body: {
    error?: { code: string };
    order?: { id: string; payment: { status: string } };
    lookup_token?: string;
  };
}> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: JSON.parse(await response.text()) };
}

/**
 * A client that forges a new `cf-connecting-ip` and `X-Forwarded-For` on every create is still
 * one client: refused once the default 10 creates are spent (the recipe's earlier ones count).
 */
async function checkForgedHeadersChangeNothing(url: string): Promise<void> {
  const statuses: number[] = [];
  for (let index = 1; index <= 11; index++) {
    const forged = { 'cf-connecting-ip': `198.51.100.${index}`, 'x-forwarded-for': `203.0.113.${index}` };
    const refused = await post(
      `${url}/api/checkout/orders`,
      { cart: null },
      {
        'idempotency-key': crypto.randomUUID(),
        ...forged,
      },
    );
    statuses.push(refused.status);
  }
  assert.equal(statuses.at(-1), 429, `statuses ${statuses.join(', ')}`);
}

/** The whole check of one running recipe, over real HTTP. */
async function checkRecipe(url: string, platformHeaders: Record<string, string>): Promise<void> {
  const key = crypto.randomUUID();
  const intent = { ...customer, cart: { items: [{ product_id: 'kente-tote', quantity: 1 }] } };
  const create = (body: unknown) =>
    post(`${url}/api/checkout/orders`, body, { 'idempotency-key': key, ...platformHeaders });

  const created = await create(intent);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const orderId = created.body.order?.id as string;
  const token = created.body.lookup_token as string;
  assert.equal(typeof token, 'string');

  const replayed = await create(intent);
  assert.equal(replayed.status, 200, JSON.stringify(replayed.body));
  assert.equal(replayed.body.order?.id, orderId, 'the replay answers the same order');

  const reused = await create({ ...intent, cart: { items: [{ product_id: 'kente-tote', quantity: 2 }] } });
  assert.equal(reused.status, 422, JSON.stringify(reused.body));
  assert.equal(reused.body.error?.code, 'idempotency_key_reused');

  const lookup = (lookupToken: string) =>
    post(`${url}/api/checkout/lookup`, { order_id: orderId, lookup_token: lookupToken }, platformHeaders);
  const looked = await lookup(token);
  assert.equal(looked.status, 200, JSON.stringify(looked.body));
  assert.equal(looked.body.order?.payment.status, 'requires_action');
  const forged = await lookup(`${token.slice(0, -2)}xx`);
  assert.equal(forged.status, 403, JSON.stringify(forged.body));

  // The sandbox under /sandbox: its control surface pays, and the relay reads the order from it.
  const approved = await post(`${url}/sandbox/_sandbox/payments/approve`, { order_id: orderId });
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  // Polled as a tab polls: a read begun within the last second answers, then the next one.
  await eventually(
    'the recipe to answer the order paid',
    async () => (await lookup(token)).body.order?.payment.status === 'paid',
    { intervalMs: 500 },
  );
}

describe('the server recipes of docs/relay.md, installed from the packed tarball', {
  timeout: 300_000,
}, () => {
  let workDirectory: string;
  let consumer: string;

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-servers-'));
    consumer = join(workDirectory, 'shop');
    const { tarball } = await packRepository(workDirectory);
    await cp(examples, consumer, { recursive: true, filter: (path) => !path.includes('node_modules') });
    await writeFile(join(consumer, 'serve-web-app.js'), SERVE_WEB_APP);
    await writeFile(join(consumer, 'serve-bundled-app.js'), SERVE_BUNDLED_APP);
    await writeFile(join(consumer, 'play-bun.js'), PLAY_BUN);
    await writeFile(join(consumer, 'play-deno.js'), PLAY_DENO);
    await installWithPackage(consumer, tarball);
  });

  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  it('are in docs/relay.md word for word', async () => {
    const page = readPage('docs/relay.md');
    for (const path of SHOWN_FILES) {
      const file = await readText(join(examples, path));
      const block = blockAfter(page, `example: examples/servers/${path} -->`);
      assert.equal(block, file, `docs/relay.md block of examples/servers/${path}`);
    }
  });

  it('keep hono-web runtime-neutral: no Node module, no process', async () => {
    const app = await readText(join(examples, 'hono-web', 'app.js'));
    assert.doesNotMatch(app, /from 'node:|@hono\/node-server|process\./);
  });

  it('key Bun and Deno clients on the runtime’s own peer address, never on a header', async () => {
    const bun = await readText(join(examples, 'bun', 'server.js'));
    const deno = await readText(join(examples, 'deno', 'server.js'));
    assert.match(bun, /clientAddress: c\.env\.requestIP\(c\.req\.raw\)\?\.address/);
    assert.match(deno, /clientAddress: c\.env\.remoteAddr\.hostname/);
    for (const recipe of [bun, deno]) assert.doesNotMatch(recipe, /c\.req\.header\(|headers\.get\(/);
  });

  it('hono-web bundles for web runtimes with nothing external, and serves', {
    timeout: 60_000,
  }, async (t) => {
    // As wrangler bundles a Worker (Vercel and Netlify Edge much the same): no Node platform, the
    // workerd conditions, and no module left to the runtime, so a `node:` import anywhere fails.
    const outfile = join(consumer, 'hono-web.bundle.js');
    await build({
      absWorkingDir: consumer,
      entryPoints: ['hono-web/app.js'],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      logLevel: 'silent',
    });
    const bundle = await readFile(outfile);
    assert.doesNotMatch(bundle.toString('utf8'), /(?:\bfrom|\bimport\s*\(|\brequire\s*\()\s*["']node:/);
    t.diagnostic(`bundle: ${bundle.byteLength} B, ${gzipSync(bundle).byteLength} B gzip`);
    let running: RunningRecipe | undefined;
    try {
      running = await startRecipe(process.execPath, consumer, 'serve-bundled-app.js');
      await checkRecipe(running.url, PLATFORM_HEADERS);
      assert.deepEqual(running.errors, [], 'the bundled app printed no warning');
    } catch (error) {
      if (running) t.diagnostic(`the bundled app printed:\n${running.output.join('\n')}`);
      throw error;
    } finally {
      await stopRecipe(running);
    }
  });

  it('express: SIGTERM mid-traffic: the create in flight is answered, no new connection taken, no 5xx, exit 0', {
    timeout: 60_000,
  }, async (t) => {
    // The shop in production: the service elsewhere, so a create in flight still reaches it while the shop closes.
    const service = await startSandbox({ approveAfterMs: 60_000 });
    const env = { PAY_SECRET_KEY: 'sk_test_sandbox', PAY_API_BASE_URL: service.url };
    let running: RunningRecipe | undefined;
    try {
      running = await startRecipe(process.execPath, consumer, 'express/server.js', env);
      t.diagnostic(await checkShutdownUnderTraffic(running.url, running.child, 'Shop closing'));
      assert.deepEqual(running.errors, [], 'the recipe printed no warning');
    } catch (error) {
      if (running) t.diagnostic(`express/server.js printed:\n${running.output.join('\n')}`);
      throw error;
    } finally {
      await stopRecipe(running);
      await service.close();
    }
  });

  // Three recipes at a time: each is its own process on a free port, and its check mostly waits
  // (the process starting, the lookup a tab polls).
  for (const { major } of NODE_VERSIONS) {
    describe(`on Node ${major}`, { concurrency: 3 }, () => {
      for (const recipe of RECIPES) {
        const title = `${recipe.name}: create, replay, 422, lookup, forged token, the sandbox under /sandbox`;
        it(title, { timeout: 60_000 }, async (t) => {
          const node = await nodeBinary(major);
          if ('skip' in node) {
            t.skip(node.skip);
            return;
          }
          let running: RunningRecipe | undefined;
          try {
            running = await startRecipe(node.path, consumer, recipe.entry);
            await checkRecipe(running.url, recipe.name === 'hono-web' ? PLATFORM_HEADERS : {});
            if (PEER_KEYED.has(recipe.name)) await checkForgedHeadersChangeNothing(running.url);
            assert.deepEqual(running.errors, [], 'the recipe printed no warning');
          } catch (error) {
            if (running) t.diagnostic(`${recipe.entry} printed:\n${running.output.join('\n')}`);
            throw error;
          } finally {
            await stopRecipe(running);
          }
          t.diagnostic(`Node ${node.version}`);
        });
      }
    });
  }
});
