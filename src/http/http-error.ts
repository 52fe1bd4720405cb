/**
 * The one error a handler throws to answer with the service's error shape.
 * Handlers never return an error `Response` half-way through their
 * work: they throw, and {@link answerErrors} turns the throw into the answer.
 */
import { type ErrorBody, SERVICE_ERRORS, type ServiceErrorKind } from '../shared/service-contract.js';
import { jsonResponse } from './json-response.js';

/** Options of an {@link HttpError}. */
export interface HttpErrorOptions extends ErrorOptions {
  /** The request field at fault, dotted (`customer_data.name`), for invalid input. */
  param?: string;
  /** Headers the answer carries (`Retry-After`, `Allow`). */
  headers?: Record<string, string>;
  /** Fields the body carries beside `error` (the new `amount` of an `amount_changed`). */
  fields?: Readonly<Record<string, unknown>>;
}

/** An answer in the service's error shape, thrown by a handler and answered by {@link answerErrors}. */
export class HttpError extends Error {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The service's `error.code`. */
  readonly code: string;
  /** The service's `error.type`. */
  readonly type: string;
  /** The request field at fault, when there is one. */
  readonly param?: string;
  /** Headers the answer carries. */
  readonly headers: Readonly<Record<string, string>>;
  /** Fields the body carries beside `error`. */
  readonly fields: Readonly<Record<string, unknown>>;

  constructor(kind: ServiceErrorKind, message: string, options: HttpErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HttpError';
    const { status, code, type } = SERVICE_ERRORS[kind];
    this.status = status;
    this.code = code;
    this.type = type;
    if (options.param !== undefined) this.param = options.param;
    this.headers = options.headers ?? {};
    this.fields = options.fields ?? {};
  }

  /** The error body, `{ error: { code, message, type, param? } }`, with any fields beside `error`. */
  toJSON(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message, type: this.type };
    if (this.param !== undefined) error.param = this.param;
    return { ...this.fields, error };
  }

  /** The answer to send. */
  toResponse(): Response {
    return jsonResponse(this.toJSON(), this.status, this.headers);
  }
}

/** An answer in the service's error shape, for a handler that answers rather than throws. */
export function errorResponse(
  kind: ServiceErrorKind,
  message: string,
  options: HttpErrorOptions = {},
): Response {
  return new HttpError(kind, message, options).toResponse();
}
