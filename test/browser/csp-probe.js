// Loaded first by the CSP page: records every Content-Security-Policy
// violation, so the test can assert there were none during a whole checkout.
window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  window.cspViolations.push({
    directive: event.violatedDirective,
    blocked: event.blockedURI,
    sample: event.sample,
  });
});
