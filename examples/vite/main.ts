import 'pay-checkout';

const checkout = document.querySelector('pay-checkout');
if (checkout) {
  checkout.cart = { items: [{ product_id: 'kente-tote', quantity: 1 }] };
  // The app's own handler: here it thanks the shopper; a real shop would show the order.
  checkout.addEventListener('pay-paid', (event) => {
    const receipt = document.querySelector('#receipt');
    if (receipt) receipt.textContent = `Paid: order ${event.detail.orderId}`;
  });
}
