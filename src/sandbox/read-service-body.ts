/**
 * The body of a service request as the sandbox accepts it: a
 * JSON object within the size and depth limits, or the error the service
 * answers with.
 */

import type * as z from 'zod/mini';
import { HttpError } from '../http/http-error.js';
import { readJsonObject } from '../http/read-json-body.js';
import { SERVICE_MAX_BODY_BYTES, SERVICE_MAX_JSON_DEPTH } from '../shared/service-contract.js';
import { type BodyParseResult, parseBody } from './order-schema.js';

/** The body as a JSON object; throws {@link HttpError} (415, 413, 400). */
export async function readServiceBody(request: Request): Promise<Record<string, unknown>> {
  const body = await readJsonObject(request, SERVICE_MAX_BODY_BYTES, 'The body must be a JSON object.');
  if (nestsDeeperThan(body, SERVICE_MAX_JSON_DEPTH)) {
    throw new HttpError('invalidRequest', `The body nests more than ${SERVICE_MAX_JSON_DEPTH} levels deep.`);
  }
  return body;
}

/** `body` as `schema` reads it; throws a `400` naming the first problem's field. */
export function parsedBody<T>(schema: z.ZodMiniType<T>, body: unknown): T {
  const input: BodyParseResult<T> = parseBody(schema, body);
  if (input.ok) return input.value;
  throw new HttpError('invalidRequest', input.message, { param: input.param });
}

/** True when objects and arrays in `value` nest deeper than `maxDepth`; iterative, so any body is safe to check. */
function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.node === null || typeof next.node !== 'object') continue;
    if (next.depth > maxDepth) return true;
    for (const child of Object.values(next.node)) pending.push({ node: child, depth: next.depth + 1 });
  }
  return false;
}
