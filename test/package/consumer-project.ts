/**
 * The temporary project that installs the packed tarball the way a merchant
 * would: a Vite page, typed DOM usage, a typed server, and a plain-Node
 * script. Its sources live here as text because they must compile against
 * the installed package, not against this repository. The framework typings
 * (React, Preact, Vue, Svelte, Angular) are checked by
 * framework-types.test.ts, each in an app that has no other framework.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The packages the consumer installs beside the tarball, at the versions this repository tests with. */
export const CONSUMER_DEPENDENCIES = ['@lit/react', 'react', 'react-dom'] as const;
/** Tools the consumer installs for its own build and types. */
export const CONSUMER_DEV_DEPENDENCIES = ['vite', '@types/node'] as const;

/** Keeps Chromium from asking for `/favicon.ico`, whose 404 would read as a page error. */
export const NO_FAVICON = '<link rel="icon" href="data:," />';

/** Where the browser check looks for the element's form (its controls' names). */
export const CHECKOUT_MARKUP =
  '<pay-checkout create-url="/api/checkout/orders" lookup-url="/api/checkout/lookup" amount="5000"></pay-checkout>';

async function installedVersion(repositoryRoot: string, name: string): Promise<string> {
  const manifest = JSON.parse(
    await readFile(join(repositoryRoot, 'node_modules', name, 'package.json'), 'utf8'),
  ) as { version: string };
  return manifest.version;
}

async function versionsOf(repositoryRoot: string, names: readonly string[]): Promise<Record<string, string>> {
  const entries = await Promise.all(
    names.map(async (name) => [name, await installedVersion(repositoryRoot, name)] as const),
  );
  return Object.fromEntries(entries);
}

/**
 * Run in the consumer with plain `node` (no DOM): imports every entry, and
 * fails if a module of the package reads `window`, `document` or storage. Those
 * globals are getters that answer `undefined`, as in Node, and note who asked:
 * Lit's own guarded `document` check is not ours to judge. Then it uses what it
 * imported (server rendering of the React wrapper, a create and a lookup
 * through the relay against the sandbox) and prints one JSON line.
 */
const NODE_IMPORTS_SCRIPT = `import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageReads = [];
const browserGlobals = ['window', 'document', 'self', 'location', 'localStorage', 'sessionStorage'];
for (const name of browserGlobals) {
  assert.ok(!(name in globalThis), name + ' exists in plain Node');
  Object.defineProperty(globalThis, name, {
    configurable: true,
    get() {
      const caller = (new Error().stack ?? '').split('\\n')[2] ?? '';
      if (caller.includes('/node_modules/pay-checkout/')) packageReads.push(name + ' ' + caller.trim());
      return undefined;
    },
  });
}

const element = await import('pay-checkout');
assert.equal(typeof element.PayCheckout, 'function');
assert.equal(customElements.get('pay-checkout'), element.PayCheckout, "Lit's server shim holds the tag");
const server = await import('pay-checkout/server');
const sandbox = await import('pay-checkout/sandbox');
const react = await import('pay-checkout/react');
const jsx = await import('pay-checkout/jsx');
assert.deepEqual(Object.keys(jsx), [], 'pay-checkout/jsx is types only');

// The embed is a browser script: it must resolve to the shipped file, and the
// integrity value beside it must be that file's.
const embedFile = fileURLToPath(import.meta.resolve('pay-checkout/embed'));
assert.match(embedFile, /node_modules\\/pay-checkout\\/dist\\/pay-checkout\\.embed\\.js$/);
const embed = readFileSync(embedFile);
const integrity = 'sha384-' + createHash('sha384').update(embed).digest('base64');
assert.equal(readFileSync(embedFile + '.sha384', 'utf8').trim(), integrity);

const { createElement } = await import('react');
const { renderToString } = await import('react-dom/server');
const rendered = renderToString(
  createElement(react.PayCheckout, { createUrl: '/api/checkout/orders', lookupUrl: '/api/checkout/lookup', amount: 5000 }),
);
assert.match(rendered, /^<pay-checkout[\\s>]/);

const running = await sandbox.startSandbox({ approveAfterMs: 600000 });
let createStatus;
let lookupStatus;
let forgedLookupStatus;
let paymentStatus;
try {
  const relay = server.createCheckoutRelay({
    secretKey: 'sk_test_sandbox',
    baseUrl: running.url,
    lookupSecret: 'consumer-check-lookup-secret',
    rateLimit: false,
    onEvent: () => {},
    priceCart: () => [{ type: 'product', product: { name: 'Kente tote', price: { currency: 'ghs', value: 5000 }, quantity: 1 } }],
  });
  const post = (path, body, headers = {}) =>
    relay.handle(
      new Request('http://shop.test/api/checkout/' + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    );
  const created = await post(
    'orders',
    {
      customer_data: { name: 'Ama Mensah', phone_number: '+233241234567' },
      payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: '0241234567' } },
      cart: null,
    },
    { 'idempotency-key': 'consumer-check-attempt-1' },
  );
  createStatus = created.status;
  const answer = await created.json();
  const lookup = await post('lookup', { order_id: answer.order.id, lookup_token: answer.lookup_token });
  lookupStatus = lookup.status;
  paymentStatus = (await lookup.json()).order.payment.status;
  forgedLookupStatus = (await post('lookup', { order_id: answer.order.id, lookup_token: 'forged' })).status;
} finally {
  await running.close();
}

for (const name of browserGlobals) {
  assert.equal(typeof Object.getOwnPropertyDescriptor(globalThis, name)?.get, 'function', name + ' was replaced');
}
console.log(
  JSON.stringify({
    entries: { element: Object.keys(element), server: Object.keys(server), sandbox: Object.keys(sandbox), react: Object.keys(react) },
    packageReads,
    rendered,
    createStatus,
    lookupStatus,
    paymentStatus,
    forgedLookupStatus,
  }),
);
`;

/** Every file of the consumer project, by path relative to its root. */
export async function consumerFiles(
  repositoryRoot: string,
  tarball: string,
): Promise<Record<string, string>> {
  const packageJson = {
    name: 'pay-checkout-consumer',
    private: true,
    type: 'module',
    dependencies: {
      'pay-checkout': `file:${tarball}`,
      ...(await versionsOf(repositoryRoot, CONSUMER_DEPENDENCIES)),
    },
    devDependencies: await versionsOf(repositoryRoot, CONSUMER_DEV_DEPENDENCIES),
  };
  return {
    'package.json': `${JSON.stringify(packageJson, null, 2)}\n`,
    // A bundler app's usual settings, with the libraries' own declaration files checked too.
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: {
          target: 'es2022',
          lib: ['es2022', 'dom', 'dom.iterable'],
          module: 'esnext',
          moduleResolution: 'bundler',
          jsx: 'react-jsx',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        include: ['src/browser'],
      },
      null,
      2,
    )}\n`,
    // A merchant's server: the same, with Node's types.
    'tsconfig.server.json': `${JSON.stringify(
      { extends: './tsconfig.json', compilerOptions: { types: ['node'] }, include: ['src/server'] },
      null,
      2,
    )}\n`,
    'index.html': `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>A shop</title>${NO_FAVICON}</head>
  <body>
    ${CHECKOUT_MARKUP}
    <script type="module" src="/src/browser/main.ts"></script>
  </body>
</html>
`,
    // The bare import is the one a wrong "sideEffects" would let a bundler drop.
    'src/browser/main.ts': `import 'pay-checkout';\n`,
    'src/browser/vanilla.ts': `import { CHECKOUT_STATE, type PayCheckout, type PayPaidEvent } from 'pay-checkout';

const checkout: PayCheckout | null = document.querySelector('pay-checkout');
const created: PayCheckout = document.createElement('pay-checkout');
created.cart = { product_id: 'kente-tote' };
checkout?.addEventListener('pay-paid', (event: PayPaidEvent) => console.log(event.detail.orderId));
checkout?.addEventListener('pay-state-change', (event) => {
  if (event.detail.state === CHECKOUT_STATE.paid) console.log('paid');
});
`,
    'src/server/relay.ts': `import { createServer } from 'node:http';
import { CartError, createCheckoutRelay, type PricedLineItem } from 'pay-checkout/server';
import { startSandbox } from 'pay-checkout/sandbox';

const sandbox = await startSandbox();
const relay = createCheckoutRelay({
  secretKey: 'sk_test_sandbox',
  baseUrl: sandbox.url,
  priceCart: (cart): PricedLineItem[] => {
    if (cart === null) throw new CartError('The cart is empty.');
    return [{ type: 'product', product: { name: 'Kente tote', price: { currency: 'ghs', value: 5000 }, quantity: 1 } }];
  },
});
createServer(relay.node).listen(0, '127.0.0.1');
`,
    'node-imports.mjs': NODE_IMPORTS_SCRIPT,
  };
}

/** Writes the consumer project under `directory`. */
export async function writeConsumerProject(directory: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const target = join(directory, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}
