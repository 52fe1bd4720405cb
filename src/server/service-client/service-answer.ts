/**
 * What a service answer means: the validated output for a `2xx` in the
 * documented shape, else the {@link ServiceError} the service's error
 * statuses assign to it. Messages never quote the key.
 */
import type * as z from 'zod/mini';
import type { TransportAnswer } from '../../http/transport.js';
import { REQUEST_ID_HEADER, RETRY_AFTER_HEADER, SERVICE_ERRORS } from '../../shared/service-contract.js';
import { issueParam } from '../../shared/wire.js';
import { parseRetryAfter } from './retry-after.js';
import {
  CLIENT_ERROR_CODES,
  ServiceApiError,
  type ServiceError,
  serviceErrorClassFor,
} from './service-errors.js';
import { serviceErrorBodySchema } from './service-schemas.js';

/**
 * The output of a `2xx` answer in the documented shape; throws the
 * {@link ServiceError} of any other. With `isAnswer`, a check that accepts
 * exactly what `answerSchema` does, an accepted answer is the parsed JSON as
 * it came, not the schema's copy of it.
 */
export function interpretAnswer<Output>(
  path: string,
  answer: TransportAnswer,
  answerSchema: z.ZodMiniType<Output>,
  redact: (text: string) => string,
  isAnswer?: (json: unknown) => boolean,
): Output {
  const json = parseJson(answer.text);
  if (answer.status < 200 || answer.status > 299) throw errorFromAnswer(path, answer, json, redact);
  if (json === undefined) {
    throw invalidResponse(answer.status, `The service's answer to ${path} is not JSON.`, requestIdOf(answer));
  }
  if (isAnswer?.(json)) return json as Output;
  const parsed = answerSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue ? `${issueParam(issue) || '(root)'}: ${issue.message}` : 'unknown';
  throw invalidResponse(
    answer.status,
    redact(`The service's answer to ${path} is not the documented shape (${where}).`),
    requestIdOf(answer),
  );
}

function errorFromAnswer(
  path: string,
  answer: TransportAnswer,
  json: unknown,
  redact: (text: string) => string,
): ServiceError {
  const status = answer.status;
  const fallback = Object.values(SERVICE_ERRORS).find((entry) => entry.status === status);
  const body = serviceErrorBodySchema.safeParse(json);
  const requestId = answer.header(REQUEST_ID_HEADER) ?? undefined;
  const retryAfterMs =
    status === SERVICE_ERRORS.rateLimited.status
      ? parseRetryAfter(answer.header(RETRY_AFTER_HEADER))
      : undefined;
  // A 404 means "no such order" only in the service's own words: a proxy's or
  // load balancer's page (HTML during a deploy) says nothing of the order.
  if (status === SERVICE_ERRORS.resourceNotFound.status && !body.success) {
    return invalidResponse(status, `The service's 404 answer to ${path} is not its error shape.`, requestId);
  }
  const ErrorClass = serviceErrorClassFor(status);
  return new ErrorClass({
    status,
    code: body.success ? body.data.error.code : (fallback?.code ?? `http_${status}`),
    type: body.success ? body.data.error.type : (fallback?.type ?? 'api_error'),
    message: redact(
      body.success ? body.data.error.message : `The service answered ${path} with HTTP ${status}.`,
    ),
    ...(body.success && body.data.error.param !== undefined ? { param: redact(body.data.error.param) } : {}),
    ...(requestId === undefined ? {} : { requestId }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/** A `2xx` answer that is not what the specification describes. */
function invalidResponse(status: number, message: string, requestId?: string): ServiceApiError {
  return new ServiceApiError({
    status,
    ...CLIENT_ERROR_CODES.invalidResponse,
    message,
    ...(requestId === undefined ? {} : { requestId }),
  });
}

/** The answer's request id; headers are read only for an error. */
function requestIdOf(answer: TransportAnswer): string | undefined {
  return answer.header(REQUEST_ID_HEADER) ?? undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
