// The page says what is bought; the server's priceCart (catalogue.js) decides what it costs.
const checkout = document.querySelector('pay-checkout');
const product = document.querySelector('#product');
// The shop's cart id, kept for this tab: every attempt to pay this cart carries it.
const cartId = sessionStorage.getItem('cart-id') ?? `cart-${crypto.randomUUID()}`;
sessionStorage.setItem('cart-id', cartId);

function chooseProduct() {
  checkout.cart = { id: cartId, items: [{ product_id: product.value, quantity: 1 }] };
  checkout.amount = Number(product.selectedOptions[0].dataset.pesewas); // shown, never charged
}
product.addEventListener('change', chooseProduct);
chooseProduct();

checkout.addEventListener('pay-paid', (event) => {
  document.querySelector('#thanks').textContent = `Thank you: order ${event.detail.orderId} is paid.`;
});
