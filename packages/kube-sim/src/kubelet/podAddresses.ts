/**
 * Pod IPs: each pod gets a loopback address of its own (127.0.0.N, then 127.0.1.N, …), which
 * Linux routes to this machine, so a process bound to its podIP is reachable there and nowhere
 * else. 127.0.0.1 stays the host's.
 */
export class PodAddresses {
  private readonly inUse = new Set<number>();

  allocate(): string {
    for (let n = 2; n < 65_534; n++) {
      if (n % 256 === 0 || n % 256 === 255 || this.inUse.has(n)) continue;
      this.inUse.add(n);
      return `127.0.${String(Math.floor(n / 256))}.${String(n % 256)}`;
    }
    throw new Error("no free pod address");
  }

  release(ip: string): void {
    const [, , high = "0", low = "0"] = ip.split(".");
    this.inUse.delete(Number(high) * 256 + Number(low));
  }
}
