'use client';
import { PayCheckout } from 'pay-checkout/react';
import { useState } from 'react';
import { CART } from '../../lib/cart';

export function ReactCheckout() {
  const [paidOrder, setPaidOrder] = useState<string>();
  return (
    <>
      <PayCheckout
        createUrl="/api/checkout/orders"
        lookupUrl="/api/checkout/lookup"
        amount={5000}
        cart={CART}
        onPayPaid={(event) => setPaidOrder(event.detail.orderId)}
      />
      {paidOrder && <p role="status">Thank you, order {paidOrder}</p>}
    </>
  );
}
