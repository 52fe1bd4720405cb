import 'pay-checkout';
import type {} from 'pay-checkout/preact';

export function CartCheckout({ cart }: { cart: unknown }) {
  return (
    <pay-checkout
      create-url="/api/checkout/orders"
      lookup-url="/api/checkout/lookup"
      amount={5000}
      cart={cart}
      onpay-paid={(event) => console.log(event.detail.orderId)}
      onpay-state-change={(event) => console.log(event.detail.state)}
    />
  );
}
