/**
 * Pod IPs of one node from its pod CIDR, as the host-local IPAM of kind's CNI hands them out
 * (`containernetworking/plugins` host-local): the `/24`'s addresses from `.2` (`.1` is the
 * node's gateway) to `.254`, allocated round-robin after the last one given, so a released
 * address is not reused at once.
 *
 * Caveat: a node with more than 253 pods holding an address reuses addresses already in use
 * (a real node would fail to start the pod's sandbox); nothing in kubekit routes to pod IPs.
 */
export class PodIpAllocator {
  readonly #prefix: string;
  readonly #inUse = new Set<number>();
  #last = 1;

  /** @param podCidr the node's `spec.podCIDR`, a `/24` such as `10.244.1.0/24`. */
  constructor(podCidr: string) {
    const match = /^(\d+\.\d+\.\d+)\.0\/24$/.exec(podCidr);
    if (match === null)
      throw new RangeError(`PodIpAllocator: expected an IPv4 /24 pod CIDR, got ${podCidr}`);
    this.#prefix = match[1] ?? "";
  }

  /** The next free address (or, when all are taken, the next one round-robin). */
  allocate(): string {
    let host = this.#last;
    for (let tries = 0; tries < 253; tries++) {
      host = host >= 254 ? 2 : host + 1;
      if (!this.#inUse.has(host)) break;
    }
    this.#last = host;
    this.#inUse.add(host);
    return `${this.#prefix}.${host}`;
  }

  /** Marks `ip` as in use (a pod that already had it before this allocator existed). */
  reserve(ip: string): void {
    const host = this.#hostOf(ip);
    if (host !== undefined) this.#inUse.add(host);
  }

  /** Returns `ip` to the pool; addresses of other ranges are ignored. */
  release(ip: string): void {
    const host = this.#hostOf(ip);
    if (host !== undefined) this.#inUse.delete(host);
  }

  #hostOf(ip: string): number | undefined {
    if (!ip.startsWith(`${this.#prefix}.`)) return undefined;
    const host = Number(ip.slice(this.#prefix.length + 1));
    return Number.isInteger(host) ? host : undefined;
  }
}
