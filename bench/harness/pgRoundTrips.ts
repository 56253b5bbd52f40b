import { connect, createServer, type Server, type Socket } from "node:net";

/** The server's ReadyForQuery message: it ends every round trip, simple or extended protocol. */
const READY_FOR_QUERY = 0x5a; // "Z"

/**
 * Counts a PostgreSQL server's ReadyForQuery messages in a stream of its backend messages
 * (a type byte, then a length that counts itself), whatever the chunking.
 */
export class ReadyForQueryCounter {
  count = 0;
  /** Bytes of the current message's body still to skip. */
  private skip = 0;
  /** The header of a message split across chunks: type byte and up to four length bytes. */
  private header: number[] = [];

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.skip > 0) {
        const taken = Math.min(this.skip, chunk.length - at);
        this.skip -= taken;
        at += taken;
        continue;
      }
      this.header.push(chunk[at] ?? 0);
      at += 1;
      if (this.header.length < 5) continue;
      const [type = 0, ...length] = this.header;
      if (type === READY_FOR_QUERY) this.count += 1;
      this.skip = Buffer.from(length).readInt32BE(0) - 4;
      this.header = [];
    }
  }
}

/**
 * A TCP relay in front of PostgreSQL that counts the round trips made through it: exact where
 * pg_stat_database lags (a backend flushes its counters at most once a second, an idle one only
 * after ten), and blind to nothing, whichever pool or client makes the call.
 */
export class PgRoundTripCounter {
  private readonly counters = new Set<ReadyForQueryCounter>();
  private readonly sockets = new Set<Socket>();
  private server?: Server;

  private constructor(private readonly upstream: URL) {}

  /** Starts the relay; `url` is the database URL clients of the relay should use. */
  static async start(databaseUrl: string): Promise<{ counter: PgRoundTripCounter; url: string }> {
    const counter = new PgRoundTripCounter(new URL(databaseUrl));
    const port = await counter.listen();
    const url = new URL(databaseUrl);
    url.hostname = "127.0.0.1";
    url.port = String(port);
    return { counter, url: url.toString() };
  }

  /** Round trips completed through the relay so far, over every connection. */
  get roundTrips(): number {
    let total = 0;
    for (const counter of this.counters) total += counter.count;
    return total;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => {
      if (this.server === undefined) resolve();
      else this.server.close(() => resolve());
    });
  }

  private listen(): Promise<number> {
    const server = createServer((client) => this.relay(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        if (address === null || typeof address === "string") reject(new Error("no TCP address"));
        else resolve(address.port);
      });
    });
  }

  private relay(client: Socket): void {
    const server = connect({
      host: this.upstream.hostname,
      port: Number(this.upstream.port === "" ? 5432 : this.upstream.port),
    });
    const counter = new ReadyForQueryCounter();
    this.counters.add(counter);
    for (const socket of [client, server]) {
      socket.setNoDelay(true);
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        server.destroy();
      });
    }
    server.on("data", (chunk: Buffer) => counter.push(chunk));
    client.pipe(server);
    server.pipe(client);
  }
}
