import { ElementCheckout } from './element-checkout';

export default function ElementPage() {
  return (
    <main>
      <h1>Checkout</h1>
      <ElementCheckout />
    </main>
  );
}
