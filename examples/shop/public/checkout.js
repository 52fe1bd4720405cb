// The page says what the shopper chooses; the server keeps the cart and decides what it costs.
const checkout = document.querySelector('pay-checkout');
const product = document.querySelector('#product');

/** Shows the cart as the server holds it: the element starts a new checkout when it changes. */
function showCart(cart) {
  checkout.cart = cart; // the relay prices the server's cart, not this copy
  checkout.amount = Number(product.selectedOptions[0].dataset.pesewas); // shown, never charged
  checkout.disabled = false;
}

async function chooseProduct() {
  const response = await fetch('/api/cart', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ items: [{ product_id: product.value, quantity: 1 }] }),
  });
  showCart(await response.json());
}
product.addEventListener('change', chooseProduct);

// After a reload the cart is still the server's, paid or not: its receipt stays on the page.
const cart = await (await fetch('/api/cart')).json();
product.value = cart.items[0]?.product_id ?? product.value;
await (cart.items.length ? showCart(cart) : chooseProduct());

checkout.addEventListener('pay-paid', (event) => {
  document.querySelector('#thanks').textContent = `Thank you: order ${event.detail.orderId} is paid.`;
});
