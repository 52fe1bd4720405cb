/**
 * What the relay's wire and limits say an answer of the relay looks like, as problems
 * in words: an empty list is a conforming answer. Written out by hand rather
 * than derived from the OpenAPI document, so that each fault names the field
 * a merchant must change.
 */
import { ORDER_ID_PATTERN } from '../shared/service-contract.js';
import { REFERENCE_PATTERN } from '../shared/wire.js';
import type { RelayAnswer } from './relay-probe.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why `json` is not `{ error: { code, message, type, param? } }`; undefined when it is. */
export function errorShapeProblem(json: unknown): string | undefined {
  if (!isObject(json)) return 'the body is not a JSON object';
  const error = json.error;
  if (!isObject(error)) return 'no "error" object';
  const missing = ['code', 'message', 'type'].filter(
    (field) => typeof error[field] !== 'string' || error[field] === '',
  );
  if (missing.length > 0) return `error.${missing.join(', error.')} missing or not a non-empty string`;
  if ('param' in error && typeof error.param !== 'string') return 'error.param is not a string';
  return undefined;
}

/** `status code (param)` of an answer, for reports. */
export function describeAnswer(answer: RelayAnswer): string {
  const error = isObject(answer.json) && isObject(answer.json.error) ? answer.json.error : undefined;
  const code = typeof error?.code === 'string' ? ` ${error.code}` : '';
  const param = typeof error?.param === 'string' ? ` (param ${error.param})` : '';
  return `${answer.status}${code}${param}`;
}

/** `: "message"` of an error answer that has one, for a fault the merchant must read. */
export function quotedMessage(answer: RelayAnswer): string {
  const error = isObject(answer.json) && isObject(answer.json.error) ? answer.json.error : undefined;
  return typeof error?.message === 'string' ? `: ${JSON.stringify(error.message)}` : '';
}

/** What an error answer is expected to be. */
export interface ExpectedError {
  status: number;
  code: string;
  /** The `param` it must name, when the contract fixes one. */
  param?: string;
}

/** The problems of `answer` as the error `expected`. */
export function errorProblems(answer: RelayAnswer, expected: ExpectedError): string[] {
  const wanted = `${expected.status} ${expected.code}${expected.param ? ` with param ${expected.param}` : ''}`;
  if (answer.status !== expected.status) return [`expected ${wanted}, got ${describeAnswer(answer)}`];
  const shape = errorShapeProblem(answer.json);
  if (shape !== undefined) return [`${answer.status}, but not the error shape: ${shape}`];
  const error = (answer.json as { error: Json }).error;
  const problems: string[] = [];
  if (error.code !== expected.code)
    problems.push(`expected code ${expected.code}, got ${String(error.code)}`);
  if (expected.param !== undefined && error.param !== expected.param) {
    problems.push(
      `expected param ${expected.param}, got ${error.param === undefined ? 'none' : String(error.param)}`,
    );
  }
  return problems;
}

/** Fields of `object` outside `allowed`, named with `prefix`. */
function extraFields(object: Json, allowed: readonly string[], prefix: string): string[] {
  return Object.keys(object)
    .filter((key) => !allowed.includes(key))
    .map((key) => `${prefix}${key}`);
}

/** A code such as `declined`: never free text, which could carry anything. */
const FAILURE_CODE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Problems of an `order.amount`, when the answer has one: `{ currency, value }`
 * in minor units and nothing else. A relay from before amounts were answered
 * sends none, and the element then shows the page's amount: that is no fault.
 */
function amountProblems(order: Json): string[] {
  if (!('amount' in order)) return [];
  const amount = order.amount;
  if (!isObject(amount)) return ['order.amount is not an object { currency, value }'];
  const problems: string[] = [];
  if (typeof amount.currency !== 'string' || !/^[a-z]{3}$/.test(amount.currency)) {
    problems.push('order.amount.currency is not a lowercase three-letter code such as "ghs"');
  }
  if (!Number.isInteger(amount.value) || (amount.value as number) < 0) {
    problems.push('order.amount.value is not a whole number of minor units');
  }
  problems.push(...extraFields(amount, ['currency', 'value'], 'order.amount.'));
  return problems;
}

/** Problems of an `order` object of a create or lookup answer; `allowed` are its permitted fields. */
function orderProblems(order: unknown, allowed: readonly string[]): string[] {
  if (!isObject(order)) return ['no "order" object'];
  const problems: string[] = [];
  if (typeof order.id !== 'string' || !ORDER_ID_PATTERN.test(order.id)) {
    problems.push(`order.id is not an order id (or_…): ${JSON.stringify(order.id)}`);
  }
  if (typeof order.status !== 'string') problems.push('order.status is not a string');
  if ('completed_at' in order && typeof order.completed_at !== 'string') {
    problems.push('order.completed_at is not a string');
  }
  const payment = order.payment;
  if (!isObject(payment) || typeof payment.status !== 'string') {
    problems.push('order.payment.status is not a string');
  } else {
    if ('failure_code' in payment && !FAILURE_CODE_PATTERN.test(String(payment.failure_code))) {
      problems.push('order.payment.failure_code is not a code such as "declined"');
    }
    problems.push(...extraFields(payment, ['status', 'failure_code'], 'order.payment.'));
  }
  problems.push(...amountProblems(order));
  problems.push(...extraFields(order, allowed, 'order.'));
  return problems;
}

/** Problems of a create answer, `{ order: { id, status, amount?, payment: { status } }, lookup_token, reference? }`. */
export function createAnswerProblems(json: unknown): string[] {
  if (!isObject(json)) return ['the body is not a JSON object'];
  const problems = orderProblems(json.order, ['id', 'status', 'amount', 'payment']);
  const token = json.lookup_token;
  if (typeof token !== 'string' || token.length === 0 || token.length > 256) {
    problems.push('lookup_token is not a string of 1–256 characters');
  }
  const { reference } = json;
  if ('reference' in json && reference !== null && !REFERENCE_PATTERN.test(String(reference))) {
    problems.push('reference is neither null nor 1–64 characters of A-Z, a-z, 0-9, _ . : and -');
  }
  problems.push(...extraFields(json, ['order', 'lookup_token', 'reference'], ''));
  return problems;
}

/** Problems of a lookup answer: `{ order: { id, status, completed_at?, amount?, payment: { status, failure_code? } } }` only. */
export function lookupAnswerProblems(json: unknown, orderId: string): string[] {
  if (!isObject(json)) return ['the body is not a JSON object'];
  const problems = orderProblems(json.order, ['id', 'status', 'completed_at', 'amount', 'payment']);
  if (isObject(json.order) && json.order.id !== orderId) {
    problems.push(`order.id is ${JSON.stringify(json.order.id)}, not the order looked up (${orderId})`);
  }
  problems.push(...extraFields(json, ['order'], ''));
  return problems;
}

/** The order id of a create answer that has one. */
export function orderIdOf(answer: RelayAnswer): string | undefined {
  const order = isObject(answer.json) ? answer.json.order : undefined;
  return isObject(order) && typeof order.id === 'string' ? order.id : undefined;
}

/** The lookup token of a create answer that has one. */
export function lookupTokenOf(answer: RelayAnswer): string | undefined {
  const token = isObject(answer.json) ? answer.json.lookup_token : undefined;
  return typeof token === 'string' && token.length > 0 ? token : undefined;
}
