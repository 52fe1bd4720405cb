// Only the wrapper's entry is imported in this project (tsconfig.wrapper.json): its types bring the
// JSX typings of the tag itself, as they did before pay-checkout/jsx was React's alone.
import type {} from 'pay-checkout/react';

export const bareElement = <pay-checkout amount={5000} onpay-paid={(event) => event.detail.orderId} />;
