/**
 * The one place where a thrown {@link HttpError} becomes its answer, and any
 * other throw a bare `500` that says nothing about the server's insides: the
 * Node listener, the sandbox and the relay's routes (which first decide what
 * the merchant hears) all answer a throw here.
 */
import type { ConnectionInfo, WebHandler } from './handler.js';
import { errorResponse, HttpError } from './http-error.js';

/** Options of {@link answerErrors}. */
export interface AnswerErrorsOptions {
  /** Told about an unexpected throw before the bare `500` goes out; its own throws are ignored. */
  onUnexpected?: (error: unknown, request: Request) => void;
  /** The message of the bare `500`. */
  unexpectedMessage?: string;
}

const DEFAULT_UNEXPECTED_MESSAGE = 'The server failed to answer.';

/** `handler`, with its thrown {@link HttpError}s answered and anything else a bare `500`. */
export function answerErrors(
  handler: WebHandler,
  options: AnswerErrorsOptions = {},
): (request: Request, connection?: ConnectionInfo) => Promise<Response> {
  return async (request, connection) => {
    try {
      return await handler(request, connection);
    } catch (error) {
      return answerFor(error, request, options);
    }
  };
}

/** The answer for a throw: its own for an {@link HttpError}, else a bare `500`. */
export function answerFor(error: unknown, request: Request, options: AnswerErrorsOptions = {}): Response {
  if (error instanceof HttpError) return error.toResponse();
  try {
    options.onUnexpected?.(error, request);
  } catch {
    // Whoever logs must not turn a 500 into a crash.
  }
  return errorResponse('internalError', options.unexpectedMessage ?? DEFAULT_UNEXPECTED_MESSAGE);
}
