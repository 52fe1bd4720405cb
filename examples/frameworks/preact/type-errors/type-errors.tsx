// Each line after an `expect-error` comment must fail with that error (test/package/framework-types.test.ts).
// The typings come from tsconfig.type-errors.json's `types`, the other way to turn them on.
import 'pay-checkout';
import type { PayErrorEvent } from 'pay-checkout';

const onError = (event: PayErrorEvent) => console.warn(event.detail.code);

// expect-error TS2322: amount is a number or a string
export const objectAmount = <pay-checkout amount={{ value: 5000 }} />;
// expect-error TS2322: persist is 'session' or 'none'
export const unknownPersist = <pay-checkout persist="forever" />;
// expect-error TS2322: create-url is a string
export const numberUrl = <pay-checkout create-url={5} />;
// expect-error TS2322: a misspelled attribute (TypeScript lets any name with a hyphen through in JSX, as for data-*)
export const misspelled = <pay-checkout amout={5000} />;
// expect-error TS2322: a pay-error handler cannot take pay-paid
export const wrongHandler = <pay-checkout onpay-paid={onError} />;
// expect-error TS2339: pay-state-change's detail has no such field
export const wrongDetail = <pay-checkout onpay-state-change={(event) => event.detail.receipt} />;
