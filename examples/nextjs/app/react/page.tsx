import { ReactCheckout } from './react-checkout';

export default function ReactPage() {
  return (
    <main>
      <h1>Checkout</h1>
      <ReactCheckout />
    </main>
  );
}
