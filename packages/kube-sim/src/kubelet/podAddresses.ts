import { randomInt } from "node:crypto";

/** Address N is 127.0.⌊N/256⌋.(N%256); 127.0.0.1 and each block's .0 and .255 are never given. */
const FIRST = 2;
const END = 65_534;

/**
 * Pod IPs: each pod gets a loopback address of its own (127.0.0.N, then 127.0.1.N, …), which
 * Linux routes to this machine, so a process bound to its podIP is reachable there and nowhere
 * else. 127.0.0.1 stays the host's. Each simulator starts at a random address and goes round:
 * two simulators on one machine (test packages run side by side) would otherwise give their
 * first pods the same address, and boxes on the same port there would collide.
 */
export class PodAddresses {
  private readonly inUse = new Set<number>();
  private readonly start = randomInt(FIRST, END);

  allocate(): string {
    for (let i = 0; i < END - FIRST; i++) {
      const n = FIRST + ((this.start - FIRST + i) % (END - FIRST));
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
