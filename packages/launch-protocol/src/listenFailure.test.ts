import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { checkCanListen, ListenFailedError } from "./listenFailure.ts";

describe("checkCanListen", () => {
  it("passes on a free port and leaves it free", async () => {
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));

    await checkCanListen("127.0.0.1", port);
    const after = createServer().listen(port, "127.0.0.1");
    await once(after, "listening");
    await new Promise((resolve) => after.close(resolve));
  });

  it("names the port in use, and what to do", async () => {
    // Another program on every address: the dashboard's 127.0.0.1 is taken too.
    const other = createServer().listen(0, "0.0.0.0");
    await once(other, "listening");
    const { port } = other.address() as AddressInfo;
    try {
      const failed = await checkCanListen("127.0.0.1", port).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(ListenFailedError);
      expect(failed).toMatchObject({ failure: "in_use", host: "127.0.0.1", port });
      expect((failed as Error).message).toBe(
        `Port ${String(port)} on 127.0.0.1 is already in use: another program listens there ` +
          `(an earlier Berth that is still running?). Stop it, or start with another PORT.`,
      );
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("says a HOST that is not this machine's is not", async () => {
    // 192.0.2.0/24 is reserved for documentation: never an address of this machine.
    const failed = await checkCanListen("192.0.2.1", 3000).catch((error: unknown) => error);
    expect(failed).toMatchObject({ failure: "no_such_address", host: "192.0.2.1" });
    expect((failed as Error).message).toContain("Set HOST to one");
  });
});
