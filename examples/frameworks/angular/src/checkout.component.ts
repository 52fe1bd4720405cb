import { Component, CUSTOM_ELEMENTS_SCHEMA, input } from '@angular/core';
import 'pay-checkout';
import type { PayErrorEvent, PayPaidEvent } from 'pay-checkout';

@Component({
  selector: 'app-checkout',
  schemas: [CUSTOM_ELEMENTS_SCHEMA],
  template: `<pay-checkout
    create-url="/api/checkout/orders"
    lookup-url="/api/checkout/lookup"
    [amount]="5000"
    [cart]="cart()"
    (pay-paid)="onPaid($event)"
    (pay-error)="onError($event)"
  ></pay-checkout>`,
})
export class CheckoutComponent {
  readonly cart = input<unknown>(null);

  onPaid(event: PayPaidEvent) {
    console.log(event.detail.orderId);
  }

  onError(event: PayErrorEvent) {
    console.warn(event.detail.code);
  }
}
