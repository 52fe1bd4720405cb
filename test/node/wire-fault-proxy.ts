/**
 * The fault proxy of the service-client and relay tests: the fault suite's
 * shared one (test/faults/fault-proxy.ts), which forwards, answers by itself,
 * holds answers back, cuts or resets connections, and goes offline.
 */
export {
  type FaultPlan,
  type FaultPlanner,
  type FaultProxy,
  type ProxiedRequest,
  startFaultProxy,
} from '../faults/fault-proxy.js';
