import { payCheckout } from 'pay-checkout/vite';
import { defineConfig } from 'vite';
import { priceCart } from './price-cart.ts';

export default defineConfig({
  plugins: [payCheckout({ priceCart })],
});
