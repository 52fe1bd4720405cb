// Each line after an `expect-error` comment must fail with that error (test/package/framework-types.test.ts).
import 'pay-checkout';
import type { PayErrorEvent } from 'pay-checkout';
import type {} from 'pay-checkout/jsx';
import { PayCheckout } from 'pay-checkout/react';

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
// expect-error TS2339: pay-paid's detail has no such field
export const wrongDetail = <pay-checkout onpay-paid={(event) => event.detail.receipt} />;
// expect-error TS2339: the wrapper's pay-paid detail has no such field either
export const wrongWrapperDetail = <PayCheckout onPayPaid={(event) => event.detail.receipt} />;
// expect-error TS2322: the wrapper has no such event prop
export const unknownEventProp = <PayCheckout onPayRefunded={() => undefined} />;
// expect-error TS2322: the wrapper's persist is 'session' or 'none' too
export const wrongWrapperPersist = <PayCheckout persist="forever" />;
