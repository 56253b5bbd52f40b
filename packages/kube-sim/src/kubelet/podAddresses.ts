import { randomInt } from "node:crypto";

/** Loopback addresses 127.0.0.2 … 127.0.255.254, numbered as the last two octets. */
const FIRST = 2;
const END = 65_535;

/**
 * Pod IPs: each pod gets a loopback address of its own (127.0.H.L), which Linux routes to this
 * machine, so a process bound to its podIP is reachable there and nowhere else. 127.0.0.1 stays
 * the host's. Each simulator starts at a random address and goes on from there: two on one
 * machine (a person's and a test's) would otherwise both give their first pod 127.0.0.2, and the
 * second pod's process could not bind its port.
 */
export class PodAddresses {
  private readonly inUse = new Set<number>();
  private readonly start = randomInt(FIRST, END);

  allocate(): string {
    for (let step = 0; step < END - FIRST; step++) {
      const n = FIRST + ((this.start - FIRST + step) % (END - FIRST));
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
