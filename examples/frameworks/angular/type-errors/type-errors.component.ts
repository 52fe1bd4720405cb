// Each line after an `expect-error` comment must fail with that error, and no other line may fail
// (test/package/framework-types.test.ts).
import { Component, CUSTOM_ELEMENTS_SCHEMA } from '@angular/core';
import 'pay-checkout';
import type { PayErrorEvent } from 'pay-checkout';

@Component({
  selector: 'app-type-errors',
  schemas: [CUSTOM_ELEMENTS_SCHEMA],
  template: `
    <!-- expect-error TS2345: a pay-error handler cannot take pay-paid -->
    <pay-checkout (pay-paid)="onError($event)"></pay-checkout>
    <!-- expect-error TS2339: pay-state-change's detail has no such field -->
    <pay-checkout (pay-state-change)="log($event.detail.receipt)"></pay-checkout>
    <!-- Not checked: CUSTOM_ELEMENTS_SCHEMA lets any property or attribute through, whatever its value. -->
    <pay-checkout [amount]="{ value: 5000 }" [persist]="'forever'" [refund]="true"></pay-checkout>
  `,
})
export class TypeErrorsComponent {
  onError(event: PayErrorEvent) {
    console.warn(event.detail.code);
  }

  log(value: unknown) {
    console.log(value);
  }
}
