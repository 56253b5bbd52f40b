import { createServer } from "node:net";

/**
 * A loopback port free now, for a server whose address must be known before it serves (its
 * public URL, the address it announces to other replicas). Another process could take it in
 * between; on a test machine nothing else picks loopback ports at random that fast.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
