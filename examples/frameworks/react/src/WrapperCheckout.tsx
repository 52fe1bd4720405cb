import { PayCheckout, type PayCheckoutElement } from 'pay-checkout/react';
import { useRef } from 'react';

export function WrapperCheckout({ cart }: { cart: unknown }) {
  const checkout = useRef<PayCheckoutElement>(null); // checkout.current?.reset()
  return (
    <PayCheckout
      ref={checkout}
      createUrl="/api/checkout/orders"
      lookupUrl="/api/checkout/lookup"
      amount={5000}
      cart={cart}
      onPayPaid={(event) => location.assign(`/thank-you?order=${event.detail.orderId}`)}
      onPayError={(event) => console.warn(event.detail.code)}
    />
  );
}
