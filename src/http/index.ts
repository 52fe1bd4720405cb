/**
 * The web-standard HTTP layer the relay, the sandbox and the demo share: JSON
 * answers, the service's error shape, body reading within a byte limit, and
 * the one place a thrown {@link HttpError} becomes an answer. Nothing here
 * knows Node: `src/http/node/` adapts these handlers to `node:http`.
 */
export { type AnswerErrorsOptions, answerErrors, answerFor } from './answer-errors.js';
export type { ConnectionInfo, WebHandler } from './handler.js';
export { errorResponse, HttpError, type HttpErrorOptions } from './http-error.js';
export { jsonResponse } from './json-response.js';
export { pathnameOf } from './pathname.js';
export { isJsonContentType, isJsonObject, readJsonBody, readJsonObject } from './read-json-body.js';
