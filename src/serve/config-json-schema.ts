/**
 * The JSON Schema of serve's configuration, generated from the very zod
 * schema serve checks a file with; the package ships it as
 * `schema/pay-checkout.schema.json` (a test holds the two equal), so a
 * `"$schema"` line gives an editor the same verdicts serve gives.
 */
import * as z from 'zod/mini';
import { serveConfigSchema } from './serve-config.js';

/** Where the shipped schema is, in the package and in the repository. */
export const SERVE_SCHEMA_PATH = 'schema/pay-checkout.schema.json';

/** The configuration's JSON Schema (draft 2020-12), as shipped. */
export function serveConfigJsonSchema(): Record<string, unknown> {
  const { $schema, ...schema } = z.toJSONSchema(serveConfigSchema, { io: 'input' }) as Record<
    string,
    unknown
  >;
  return {
    $schema,
    title: 'pay-checkout serve configuration',
    description:
      'The configuration of `npx pay-checkout serve` (pay-checkout.json). Secrets are not set here: PAY_SECRET_KEY, PAY_CHECKOUT_API_KEY, PAY_LOOKUP_SECRET and the webhook secrets (the variables each secretEnv names) come from the environment.',
    ...schema,
  };
}

/** The shipped file's text: the schema, two-space indented, with a final line break. */
export function serveConfigSchemaText(): string {
  return `${JSON.stringify(serveConfigJsonSchema(), null, 2)}\n`;
}
