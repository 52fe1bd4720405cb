/**
 * serve's configuration: the JSON Schema shipped in the package is the one
 * generated from the zod schema serve checks with, every mistake names its
 * field and what it expected, and the secrets come from the environment
 * with the same care.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SERVE_SCHEMA_PATH, serveConfigJsonSchema } from '../../../src/serve/config-json-schema.js';
import { checkServeConfig, DEFAULT_JOURNAL, DEFAULT_LISTEN } from '../../../src/serve/serve-config.js';
import { readServeSecrets } from '../../../src/serve/serve-environment.js';
import { ServeSetupError } from '../../../src/serve/serve-parts.js';
import { checkServeSetup } from '../../../src/serve/start-serve.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const packageJson = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
  files: string[];
  exports: Record<string, unknown>;
};

/** The lines a configuration is refused with (none: accepted). */
function mistakes(value: unknown): string[] {
  const checked = checkServeConfig(value);
  return checked.ok ? [] : checked.errors;
}

describe('the JSON Schema of serve’s configuration', () => {
  it(`is ${SERVE_SCHEMA_PATH}, generated from the zod schema (npx tsx scripts/serve-schema.ts)`, () => {
    const shipped = JSON.parse(readFileSync(`${ROOT}${SERVE_SCHEMA_PATH}`, 'utf8'));
    assert.deepEqual(shipped, serveConfigJsonSchema());
  });

  it('is shipped in the package and resolves as pay-checkout/schema/pay-checkout.schema.json', () => {
    assert.ok(packageJson.files.includes('schema'), JSON.stringify(packageJson.files));
    assert.equal(packageJson.exports['./schema/pay-checkout.schema.json'], `./${SERVE_SCHEMA_PATH}`);
  });

  it('allows "$schema" and refuses any key it does not name', () => {
    assert.deepEqual(
      mistakes({ $schema: './node_modules/pay-checkout/schema/pay-checkout.schema.json' }),
      [],
    );
    const schema = serveConfigJsonSchema() as { additionalProperties?: unknown };
    assert.equal(schema.additionalProperties, false);
  });
});

describe('serve’s configuration checked', () => {
  it('puts every default in place for an empty file', () => {
    const checked = checkServeConfig({});
    assert.ok(checked.ok);
    assert.deepEqual(checked.config.listen, DEFAULT_LISTEN);
    assert.equal(checked.config.journal, DEFAULT_JOURNAL);
    assert.equal(checked.config.service, undefined);
    assert.deepEqual(checked.config.origins, []);
  });

  it('names each field that is wrong, and what it expected', () => {
    const refused = mistakes({
      listen: { port: 70_000, hots: 'x' },
      service: { baseUrl: 'ftp://service.example' },
      journal: 'mysql://db',
      redis: 'http://cache',
      origins: ['https://shop.example/path'],
      catalogue: {
        'kente tote': { name: 'Tote', unitPrice: { currency: 'ghs', value: 1 } },
        scarf: { name: '', unitPrice: { currency: 'usd', value: 1.5 } },
      },
      trustProxy: -1,
      watch: { leaseMs: 10 },
      colour: 'blue',
    });
    assert.deepEqual(refused.sort(), [
      'catalogue.kente tote: expected a sku of 1 to 64 characters of A-Z, a-z, 0-9, _ . : and -',
      'catalogue.scarf.name: expected a product name of at least 1 character',
      'catalogue.scarf.unitPrice.currency: expected one of "ghs"',
      'catalogue.scarf.unitPrice.value: expected a whole number of minor units (pesewas), at least 1',
      'colour: unknown key; expected only the keys schema/pay-checkout.schema.json names',
      'journal: expected a journal URL: "sqlite:<file>", "postgres://…" or "memory:"',
      'listen.hots: unknown key; expected only the keys schema/pay-checkout.schema.json names',
      'listen.port: expected an integer from 0 to 65535',
      'origins[0]: expected an origin such as "https://shop.example" (no path)',
      'redis: expected a Redis URL such as "redis://127.0.0.1:6379"',
      'service.baseUrl: expected an http(s) URL',
      'trustProxy: expected a hop count from 0 to 32, or a list of proxy addresses and ranges',
      'watch.leaseMs: expected milliseconds, an integer from 1000 to 600000',
    ]);
  });

  it('names a missing field and a field of the wrong type', () => {
    assert.deepEqual(mistakes({ service: {} }), [
      'service.baseUrl: expected the payments service base URL, such as "https://api.example/v1"',
    ]);
    assert.deepEqual(mistakes({ listen: { port: '8787' } }), [
      'listen.port: expected an integer from 0 to 65535',
    ]);
    assert.deepEqual(mistakes({ catalogue: { tote: { name: 'Tote' } } }), [
      'catalogue.tote.unitPrice: expected { "currency": "ghs", "value": <minor units> }',
    ]);
    assert.deepEqual(mistakes([]), ['(the file): expected a JSON object']);
  });

  it('refuses sandbox settings beside a real service', () => {
    assert.deepEqual(
      mistakes({ service: { baseUrl: 'https://api.example' }, sandbox: { approveAfterMs: 0 } }),
      ['sandbox: expected no sandbox settings with "service": the embedded sandbox runs only without it'],
    );
  });
});

describe('serve’s secrets, from the environment', () => {
  const withService = checkServeConfig({ service: { baseUrl: 'https://api.example' } });
  const sandboxed = checkServeConfig({});
  assert.ok(withService.ok && sandboxed.ok);

  it('needs PAY_SECRET_KEY with a service, and never quotes it', () => {
    const missing = readServeSecrets(withService.config, {});
    assert.deepEqual(missing.ok ? [] : missing.errors, [
      'PAY_SECRET_KEY: expected the payments service\'s secret key (sk_live_… or sk_test_…), required with "service"',
    ]);
    const publishable = readServeSecrets(withService.config, { PAY_SECRET_KEY: 'pk_live_abcdef' });
    assert.ok(!publishable.ok);
    assert.ok(!publishable.errors.join('\n').includes('pk_live_abcdef'));
    const given = readServeSecrets(withService.config, { PAY_SECRET_KEY: 'sk_live_abcdef' });
    assert.ok(given.ok);
    assert.equal(given.secrets.secretKey, 'sk_live_abcdef');
  });

  it('uses the sandbox key without a service', () => {
    const secrets = readServeSecrets(sandboxed.config, {});
    assert.ok(secrets.ok);
    assert.equal(secrets.secrets.secretKey, 'sk_test_sandbox');
    assert.equal(secrets.secrets.apiKey, undefined);
  });

  it('refuses a short API key or lookup secret, naming the variable', () => {
    const short = readServeSecrets(sandboxed.config, {
      PAY_CHECKOUT_API_KEY: 'too-short',
      PAY_LOOKUP_SECRET: 'short',
    });
    assert.deepEqual(short.ok ? [] : short.errors, [
      'PAY_CHECKOUT_API_KEY: expected at least 32 printable characters and no spaces (openssl rand -base64 32 makes one)',
      'PAY_LOOKUP_SECRET: expected at least 16 characters, the same on every serve process',
    ]);
  });
});

describe('serve’s webhook endpoints, configured', () => {
  const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const NEXT_SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
  const endpoint = { url: 'https://shop.example/webhooks/pay', secretEnv: 'SHOP_WEBHOOK_SECRET' };

  it('takes endpoints with their events, and keeps private targets refused by default', () => {
    const checked = checkServeConfig({
      webhooks: [{ ...endpoint, events: ['order.paid', 'order.expired'] }],
    });
    assert.ok(checked.ok);
    assert.deepEqual(checked.config.webhooks, [{ ...endpoint, events: ['order.paid', 'order.expired'] }]);
    assert.equal(checked.config.allowPrivateWebhookTargets, false);
    const open = checkServeConfig({ webhooks: [endpoint], allowPrivateWebhookTargets: true });
    assert.ok(open.ok && open.config.allowPrivateWebhookTargets);
    const none = checkServeConfig({});
    assert.ok(none.ok);
    assert.deepEqual(none.config.webhooks, []);
  });

  it('names the field of a bad URL, event, variable name or repeated endpoint', () => {
    assert.deepEqual(
      mistakes({
        webhooks: [
          { url: 'ftp://shop.example/hook', secretEnv: 'A' },
          { url: 'https://user:pass@shop.example/hook', secretEnv: 'B' },
          { url: 'https://shop.example/hook', secretEnv: 'not a name', events: ['order.refunded'] },
          { url: 'https://shop.example/hook', secretEnv: 'C', events: [] },
          { secretEnv: 'D', colour: 1 },
        ],
        allowPrivateWebhookTargets: 'yes',
      }).sort(),
      [
        'allowPrivateWebhookTargets: expected true or false',
        'webhooks[0].url: expected the http(s) URL of an endpoint, such as "https://shop.example/webhooks/pay"',
        'webhooks[1].url: expected the http(s) URL of an endpoint, such as "https://shop.example/webhooks/pay"',
        'webhooks[2].events[0]: expected one of "order.paid", "order.failed", "order.expired"',
        'webhooks[2].secretEnv: expected the name of an environment variable, or several comma separated during a rotation',
        'webhooks[3].events: expected at least one event, or no "events" for all of them',
        'webhooks[4].colour: unknown key; expected only the keys schema/pay-checkout.schema.json names',
        'webhooks[4].url: expected the http(s) URL of an endpoint, such as "https://shop.example/webhooks/pay"',
      ],
    );
    assert.deepEqual(mistakes({ webhooks: [endpoint, { ...endpoint, secretEnv: 'OTHER' }] }), [
      'webhooks[1].url: expected a URL no other endpoint has (one endpoint, several events)',
    ]);
    const local = [
      { url: 'http://127.0.0.1:8000/hook', secretEnv: 'A' },
      { url: 'http://[::1]/hook', secretEnv: 'A' },
      { url: 'http://localhost:8000/hook', secretEnv: 'A' },
      { url: 'http://10.1.2.3/hook', secretEnv: 'A' },
      { url: 'https://shop.example/hook', secretEnv: 'A' },
      { url: 'http://localhost.:8000/hook', secretEnv: 'A' },
    ];
    assert.deepEqual(mistakes({ webhooks: local }), [
      'webhooks[0].url: 127.0.0.1 is a loopback address, refused unless "allowPrivateWebhookTargets": true (for development only)',
      'webhooks[1].url: [::1] is a loopback address, refused unless "allowPrivateWebhookTargets": true (for development only)',
      'webhooks[2].url: localhost is a loopback address, refused unless "allowPrivateWebhookTargets": true (for development only)',
      'webhooks[3].url: 10.1.2.3 is a private address, refused unless "allowPrivateWebhookTargets": true (for development only)',
      'webhooks[5].url: localhost. is a loopback address, refused unless "allowPrivateWebhookTargets": true (for development only)',
    ]);
    assert.deepEqual(mistakes({ webhooks: local, allowPrivateWebhookTargets: true }), []);
  });

  it('reads each secret from the variable secretEnv names, naming the field and never the value', () => {
    const checked = checkServeConfig({ webhooks: [endpoint] });
    assert.ok(checked.ok);
    const missing = readServeSecrets(checked.config, {});
    assert.deepEqual(missing.ok ? [] : missing.errors, [
      'webhooks[0].secretEnv: SHOP_WEBHOOK_SECRET is not set; expected whsec_ and the base64 of 24 to 64 random bytes (openssl rand -base64 32 makes them)',
    ]);
    for (const wrong of [
      'sk_live_abcdefabcdefabcdefabcdef',
      'whsec_c2hvcnQ=',
      'whsec_not base64 at all!!!!!!!!!!!!',
    ]) {
      const refused = readServeSecrets(checked.config, { SHOP_WEBHOOK_SECRET: wrong });
      assert.deepEqual(refused.ok ? [] : refused.errors, [
        'webhooks[0].secretEnv: SHOP_WEBHOOK_SECRET: expected whsec_ and the base64 of 24 to 64 random bytes (openssl rand -base64 32 makes them)',
      ]);
      assert.ok(!JSON.stringify(refused).includes(wrong));
    }
    const given = readServeSecrets(checked.config, { SHOP_WEBHOOK_SECRET: SECRET });
    assert.ok(given.ok);
    assert.deepEqual(given.secrets.webhooks, [{ url: endpoint.url, secret: [SECRET], events: undefined }]);
  });

  it('names a mistake of the whole file and a missing secret in the same run', () => {
    const local = { url: 'http://localhost:8000/webhooks/pay', secretEnv: 'SHOP_WEBHOOK_SECRET' };
    assert.throws(
      () => checkServeSetup({ webhooks: [local] }, {}),
      (error: unknown) => {
        assert.ok(error instanceof ServeSetupError);
        assert.deepEqual(error.errors, [
          'webhooks[0].url: localhost is a loopback address, refused unless "allowPrivateWebhookTargets": true (for development only)',
          'webhooks[0].secretEnv: SHOP_WEBHOOK_SECRET is not set; expected whsec_ and the base64 of 24 to 64 random bytes (openssl rand -base64 32 makes them)',
        ]);
        return true;
      },
    );
  });

  it('signs with every secret a rotation names, and names each variable that is missing', () => {
    const checked = checkServeConfig({
      webhooks: [{ ...endpoint, secretEnv: 'SHOP_WEBHOOK_SECRET, SHOP_WEBHOOK_SECRET_NEXT' }],
    });
    assert.ok(checked.ok);
    const both = readServeSecrets(checked.config, {
      SHOP_WEBHOOK_SECRET: SECRET,
      SHOP_WEBHOOK_SECRET_NEXT: NEXT_SECRET,
    });
    assert.ok(both.ok);
    assert.deepEqual(both.secrets.webhooks[0]?.secret, [SECRET, NEXT_SECRET]);
    const half = readServeSecrets(checked.config, { SHOP_WEBHOOK_SECRET: SECRET });
    assert.deepEqual(half.ok ? [] : half.errors, [
      'webhooks[0].secretEnv: SHOP_WEBHOOK_SECRET_NEXT is not set; expected whsec_ and the base64 of 24 to 64 random bytes (openssl rand -base64 32 makes them)',
    ]);
  });
});
