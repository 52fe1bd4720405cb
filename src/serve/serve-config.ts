/**
 * The configuration of `pay-checkout serve`: one zod schema, read from
 * `pay-checkout.json`, from which the JSON Schema shipped in the package
 * (`schema/pay-checkout.schema.json`) is generated, so an editor and the
 * server judge a file alike. Every field carries the sentence of what it
 * expects: a merchant who gets it wrong reads the field's path and that
 * sentence, nothing of zod's. Secrets never live here: they come from the
 * environment (serve-environment.ts).
 */
import { isIP } from 'node:net';
import * as z from 'zod/mini';
import { WEBHOOK_EVENT_TYPES } from '../server/fulfilment/webhooks/webhook-event.js';
import { describeAddressKind, refusedAddressKind } from '../server/webhooks/target-address.js';
import { CURRENCIES, ORDER_INPUT_LIMITS } from '../shared/service-contract.js';

/** Where `serve` listens without a `listen` key: loopback, behind the merchant's own proxy. */
export const DEFAULT_LISTEN = { host: '127.0.0.1', port: 8787 } as const;
/** The journal without a `journal` key: a SQLite file under the working directory. */
export const DEFAULT_JOURNAL = 'sqlite:.data/pay-checkout.db';
/** A catalogue sku: what a shop's page names a product by in its cart. */
export const SKU_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

const origin = z
  .string({ error: 'expected an origin such as "https://shop.example"' })
  .check(z.regex(/^https?:\/\/[^/\s?#@]+$/, 'expected an origin such as "https://shop.example" (no path)'));

const listenSchema = z
  .strictObject(
    {
      host: z.optional(
        z
          .string({ error: 'expected a host name or address such as "127.0.0.1"' })
          .check(z.describe('Where to listen; default "127.0.0.1".')),
      ),
      port: z.optional(
        z
          .int({ error: 'expected an integer from 0 to 65535' })
          .check(
            z.gte(0, 'expected an integer from 0 to 65535'),
            z.lte(65_535, 'expected an integer from 0 to 65535'),
            z.describe('The port; default 8787, 0 for a free one.'),
          ),
      ),
    },
    { error: 'expected { "host": "127.0.0.1", "port": 8787 }' },
  )
  .check(z.describe('Where serve listens.'));

const serviceSchema = z
  .strictObject(
    {
      baseUrl: z
        .string({ error: 'expected the payments service base URL, such as "https://api.example/v1"' })
        .check(z.regex(/^https?:\/\/\S+$/, 'expected an http(s) URL')),
    },
    { error: 'expected { "baseUrl": "https://…" }' },
  )
  .check(
    z.describe(
      'The payments service; its secret key comes from PAY_SECRET_KEY. Absent: the embedded sandbox (test mode, no real money).',
    ),
  );

const unitPriceSchema = z.strictObject(
  {
    currency: z.enum(CURRENCIES, { error: `expected one of ${CURRENCIES.map((c) => `"${c}"`).join(', ')}` }),
    value: z
      .int({ error: 'expected a whole number of minor units (pesewas), at least 1' })
      .check(z.gte(ORDER_INPUT_LIMITS.priceValueMin, 'expected a whole number of minor units, at least 1')),
  },
  { error: 'expected { "currency": "ghs", "value": <minor units> }' },
);

const productSchema = z.strictObject(
  {
    name: z
      .string({ error: 'expected the product name shoppers see' })
      .check(
        z.trim(),
        z.minLength(1, 'expected a product name of at least 1 character'),
        z.maxLength(
          ORDER_INPUT_LIMITS.productNameMaxLength,
          `expected a product name of at most ${ORDER_INPUT_LIMITS.productNameMaxLength} characters`,
        ),
      ),
    unitPrice: unitPriceSchema,
  },
  { error: 'expected { "name": "…", "unitPrice": { "currency": "ghs", "value": <minor units> } }' },
);

const SKU_EXPECTED = 'expected a sku of 1 to 64 characters of A-Z, a-z, 0-9, _ . : and -';

const catalogueSchema = z
  .record(z.string().check(z.regex(SKU_PATTERN, SKU_EXPECTED)), productSchema, {
    error: 'expected an object of products by sku',
  })
  .check(
    z.describe(
      'Products by sku: a browser cart { "items": [{ "sku", "quantity" }] } is priced from it. Absent: carts are refused, checkouts come from the merchant API.',
    ),
  );

const TRUST_PROXY_EXPECTED = 'expected a hop count from 0 to 32, or a list of proxy addresses and ranges';

const trustProxySchema = z
  .union(
    [
      z.int().check(z.gte(0, TRUST_PROXY_EXPECTED), z.lte(32, TRUST_PROXY_EXPECTED)),
      z
        .array(z.string().check(z.minLength(1, TRUST_PROXY_EXPECTED)))
        .check(z.minLength(1, TRUST_PROXY_EXPECTED)),
    ],
    { error: TRUST_PROXY_EXPECTED },
  )
  .check(
    z.describe(
      'The proxies in front of serve: a hop count (1 behind one nginx) or their addresses and ranges. Absent: the peer is the client.',
    ),
  );

const msSchema = (min: number, max: number) =>
  z.optional(
    z
      .int({ error: `expected milliseconds, an integer from ${min} to ${max}` })
      .check(
        z.gte(min, `expected milliseconds, an integer from ${min} to ${max}`),
        z.lte(max, `expected milliseconds, an integer from ${min} to ${max}`),
      ),
  );

const watchSchema = z
  .strictObject(
    { createGraceMs: msSchema(1_000, 3_600_000), leaseMs: msSchema(1_000, 600_000) },
    { error: 'expected { "createGraceMs": 60000, "leaseMs": 30000 }' },
  )
  .check(
    z.describe('The watcher: how long a create may go unanswered, and how long a claim on an order lasts.'),
  );

const sandboxSchema = z
  .strictObject({ approveAfterMs: msSchema(0, 86_400_000) }, { error: 'expected { "approveAfterMs": 6000 }' })
  .check(z.describe('The embedded sandbox (without "service"): when its simulated payer approves.'));

/** An environment variable's name, as `secretEnv` lists them (comma separated during a rotation). */
const ENV_NAME = '[A-Za-z_][A-Za-z0-9_]*';
/** `secretEnv`: one variable, or several comma separated while a secret is rotated. */
export const SECRET_ENV_PATTERN = new RegExp(`^${ENV_NAME}(?:\\s*,\\s*${ENV_NAME})*$`);

const WEBHOOK_URL_EXPECTED =
  'expected the http(s) URL of an endpoint, such as "https://shop.example/webhooks/pay"';

/** True for an http(s) URL with no user name or password in it (they would be logged and journalled). */
function isEndpointUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
  } catch {
    return false;
  }
}

const webhookSchema = z.strictObject(
  {
    url: z
      .string({ error: WEBHOOK_URL_EXPECTED })
      .check(
        z.regex(/^https?:\/\/\S+$/, WEBHOOK_URL_EXPECTED),
        z.refine(isEndpointUrl, WEBHOOK_URL_EXPECTED),
        z.describe("Where the signed events are POSTed: the shop backend's receiver."),
      ),
    secretEnv: z
      .string({
        error: "expected the name of the environment variable holding the endpoint's whsec_… secret",
      })
      .check(
        z.regex(
          SECRET_ENV_PATTERN,
          'expected the name of an environment variable, or several comma separated during a rotation',
        ),
        z.describe(
          "The environment variable holding the endpoint's secret (whsec_…); several, comma separated, while a secret is rotated: each signs.",
        ),
      ),
    events: z.optional(
      z
        .array(
          z.enum(WEBHOOK_EVENT_TYPES, {
            error: `expected one of ${WEBHOOK_EVENT_TYPES.map((type) => `"${type}"`).join(', ')}`,
          }),
          { error: 'expected a list of events such as ["order.paid"]' },
        )
        .check(
          z.minLength(1, 'expected at least one event, or no "events" for all of them'),
          z.describe('The events sent to this endpoint. Absent: all of them.'),
        ),
    ),
  },
  { error: 'expected { "url": "https://…", "secretEnv": "SHOP_WEBHOOK_SECRET" }' },
);

const webhooksSchema = z
  .array(webhookSchema, { error: 'expected a list of endpoints such as [{ "url", "secretEnv" }]' })
  .check(
    z.describe(
      'Webhook endpoints: each settled order is POSTed to them, signed (Standard Webhooks), retried for about three days.',
    ),
  );

/** The configuration file's schema. */
export const serveConfigSchema = z.strictObject({
  $schema: z.optional(z.string({ error: 'expected the URL or path of the JSON Schema' })),
  listen: z.optional(listenSchema),
  service: z.optional(serviceSchema),
  journal: z.optional(
    z
      .string({ error: 'expected a journal URL' })
      .check(
        z.regex(
          /^(?:sqlite:.+|postgres(?:ql)?:\/\/.+|memory:)$/,
          'expected a journal URL: "sqlite:<file>", "postgres://…" or "memory:"',
        ),
        z.describe(`The order journal; default "${DEFAULT_JOURNAL}" (relative to the working directory).`),
      ),
  ),
  redis: z.optional(
    z
      .string({ error: 'expected a Redis URL' })
      .check(
        z.regex(/^rediss?:\/\/\S+$/, 'expected a Redis URL such as "redis://127.0.0.1:6379"'),
        z.describe('A Redis shared by the fleet for the rate limits. Absent: limits in this process.'),
      ),
  ),
  origins: z.optional(
    z
      .array(origin, { error: 'expected a list of origins such as ["https://shop.example"]' })
      .check(z.describe('The shop pages that may call /checkout/ across origins (CORS). None by default.')),
  ),
  catalogue: z.optional(catalogueSchema),
  trustProxy: z.optional(trustProxySchema),
  watch: z.optional(watchSchema),
  sandbox: z.optional(sandboxSchema),
  webhooks: z.optional(webhooksSchema),
  allowPrivateWebhookTargets: z.optional(
    z
      .boolean({ error: 'expected true or false' })
      .check(
        z.describe(
          'Lets webhooks reach private, loopback and link-local addresses: for development only. Default false.',
        ),
      ),
  ),
});

/** A webhook endpoint as the file has it. */
export type WebhookEndpointConfig = z.infer<typeof webhookSchema>;

/** A configuration as the file has it, checked. */
export type ServeConfigFile = z.infer<typeof serveConfigSchema>;

/** A catalogue entry: the name shoppers see and the price of one. */
export type CatalogueProduct = z.infer<typeof productSchema>;

/** The configuration with its defaults in place. */
export interface ServeConfig {
  readonly listen: { readonly host: string; readonly port: number };
  readonly service: { readonly baseUrl: string } | undefined;
  readonly journal: string;
  readonly redis: string | undefined;
  readonly origins: readonly string[];
  readonly catalogue: Readonly<Record<string, CatalogueProduct>> | undefined;
  readonly trustProxy: number | readonly string[] | undefined;
  readonly watch: { readonly createGraceMs?: number; readonly leaseMs?: number };
  readonly sandbox: { readonly approveAfterMs?: number };
  /** The webhook endpoints; their secrets are read from the variables `secretEnv` names. */
  readonly webhooks: readonly WebhookEndpointConfig[];
  readonly allowPrivateWebhookTargets: boolean;
}

/** A configuration checked: the config with its defaults, or one line per mistake (`field: expected …`). */
/**
 * The configuration with its defaults, or every mistake found; a file whose
 * fields each read well but that is wrong as a whole (an endpoint twice, a
 * private target) also carries its `config`, so the environment can be
 * checked against it in the same run.
 */
export type ConfigCheck =
  | { ok: true; config: ServeConfig }
  | { ok: false; errors: string[]; config?: ServeConfig };

/** The path of an issue as a merchant writes it: `listen.port`, `origins[0]`, `catalogue.kente-tote.name`. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index ? '.' : ''}${String(part)}`))
    .join('');
}

/** One line per issue: the field, and what it expected. */
function issueLines(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'invalid_key') {
      return [`${fieldOf(issue.path)}: ${issue.issues[0]?.message ?? SKU_EXPECTED}`];
    }
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const field = fieldOf([...issue.path, key]);
        return `${field}: unknown key; expected only the keys schema/pay-checkout.schema.json names`;
      });
    }
    const field = fieldOf(issue.path) || '(the file)';
    const message = issue.message.startsWith('expected') ? issue.message : `expected ${issue.message}`;
    return [`${field}: ${message}`];
  });
}

/** One line per endpoint whose URL an earlier one has: the journal knows an endpoint by its URL. */
function repeatedEndpoints(webhooks: readonly WebhookEndpointConfig[]): string[] {
  const seen = new Set<string>();
  return webhooks.flatMap((endpoint, index) => {
    const url = new URL(endpoint.url).href;
    if (!seen.has(url)) {
      seen.add(url);
      return [];
    }
    return [`webhooks[${index}].url: expected a URL no other endpoint has (one endpoint, several events)`];
  });
}

/**
 * One line per endpoint whose URL names a private address outright (`127.0.0.1`, `[::1]`,
 * `localhost`): every attempt to it would be refused, so serve says so before it starts. A name
 * that resolves to one is refused at each attempt, after resolution.
 */
function privateEndpoints(webhooks: readonly WebhookEndpointConfig[]): string[] {
  return webhooks.flatMap((endpoint, index) => {
    const { hostname } = new URL(endpoint.url);
    const literal = isIP(hostname.replace(/^\[|\]$/g, '')) !== 0;
    // A name with its root's dot (`localhost.`) is the same name.
    const name = hostname.replace(/\.$/, '');
    const kind =
      name === 'localhost' || name.endsWith('.localhost')
        ? 'loopback'
        : literal
          ? refusedAddressKind(hostname)
          : null;
    if (kind === null) return [];
    return [
      `webhooks[${index}].url: ${hostname} is ${describeAddressKind(kind)}, refused unless "allowPrivateWebhookTargets": true (for development only)`,
    ];
  });
}

/** Checks a parsed configuration file (`{}` when there is none) and puts its defaults in place. */
export function checkServeConfig(value: unknown): ConfigCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, errors: ['(the file): expected a JSON object'] };
  }
  const parsed = serveConfigSchema.safeParse(value);
  // Two checks of one field may fail alike (a URL's pattern and its parse): one line says it.
  if (!parsed.success) return { ok: false, errors: [...new Set(issueLines(parsed.error.issues))] };
  const file = parsed.data;
  const config = withDefaults(file);
  const mistakes = [
    ...(file.service && file.sandbox
      ? ['sandbox: expected no sandbox settings with "service": the embedded sandbox runs only without it']
      : []),
    ...repeatedEndpoints(file.webhooks ?? []),
    ...(file.allowPrivateWebhookTargets ? [] : privateEndpoints(file.webhooks ?? [])),
  ];
  return mistakes.length > 0 ? { ok: false, errors: mistakes, config } : { ok: true, config };
}

/** A file that parsed, with every default in place. */
function withDefaults(file: z.infer<typeof serveConfigSchema>): ServeConfig {
  return {
    listen: {
      host: file.listen?.host ?? DEFAULT_LISTEN.host,
      port: file.listen?.port ?? DEFAULT_LISTEN.port,
    },
    service: file.service,
    journal: file.journal ?? DEFAULT_JOURNAL,
    redis: file.redis,
    origins: file.origins ?? [],
    catalogue: file.catalogue,
    trustProxy: file.trustProxy,
    watch: file.watch ?? {},
    sandbox: file.sandbox ?? {},
    webhooks: file.webhooks ?? [],
    allowPrivateWebhookTargets: file.allowPrivateWebhookTargets ?? false,
  };
}
