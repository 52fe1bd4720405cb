import 'pay-checkout';
import type { PayPaidEvent } from 'pay-checkout';
import type {} from 'pay-checkout/jsx';

export function ElementCheckout({ cart }: { cart: unknown }) {
  const onPaid = (event: PayPaidEvent) => console.log(event.detail.orderId);
  return (
    <pay-checkout
      create-url="/api/checkout/orders"
      lookup-url="/api/checkout/lookup"
      amount={5000}
      cart={cart}
      persist="none"
      onpay-paid={onPaid}
      onpay-error={(event) => console.warn(event.detail.code)}
    />
  );
}
