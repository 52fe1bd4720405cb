'use client';
import 'pay-checkout';
import type { PayCheckout, PayPaidEvent } from 'pay-checkout';
import type {} from 'pay-checkout/jsx';
import { useEffect, useRef, useState } from 'react';
import { CART } from '../../lib/cart';

export function ElementCheckout() {
  const checkout = useRef<PayCheckout>(null);
  const [paidOrder, setPaidOrder] = useState<string>();
  useEffect(() => {
    const element = checkout.current;
    if (!element) return;
    // React 19 adds no `onpay-paid` listener to server-rendered HTML it hydrates
    // (facebook/react#35446): listen through the element itself.
    const onPaid = (event: PayPaidEvent) => setPaidOrder(event.detail.orderId);
    element.addEventListener('pay-paid', onPaid);
    return () => element.removeEventListener('pay-paid', onPaid);
  }, []);
  return (
    <>
      <pay-checkout
        ref={checkout}
        create-url="/api/checkout/orders"
        lookup-url="/api/checkout/lookup"
        amount={5000}
        cart-json={JSON.stringify(CART)}
      />
      {paidOrder && <p role="status">Thank you, order {paidOrder}</p>}
    </>
  );
}
