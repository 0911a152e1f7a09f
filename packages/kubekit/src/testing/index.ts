/**
 * kubekit/testing: what tests of code built on kubekit use, as `k8s.io/client-go/testing`
 * holds client-go's fakes. Today that is {@link FakeClock}, the manually advanced clock every
 * time-dependent piece of kubekit accepts (`clock` options), so tests of delays, rate limits,
 * resyncs, backoff and leases never sleep.
 *
 * The embedded API server is `@kubekit/apiserver`; the simulated control plane is
 * `@kubekit/cluster`.
 *
 * @packageDocumentation
 */
export { FakeClock } from "../core/clock.js";
