import { closeSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { once } from "node:events";

/** Where boxd listens: a TCP address (by hand, a pod) or a Unix socket (a local box). */
export type ListenTarget =
  | { readonly kind: "tcp"; readonly host: string; readonly port: number }
  | {
      readonly kind: "socket";
      /** The socket's path, or its name in the folder open on `dirFd`. */
      readonly path: string;
      /** A folder the socket is made in through /proc/self/fd, closed once listening. */
      readonly dirFd?: number;
    };

/** Where boxd ended up listening, as its `listening` log line says. */
export type BoundAddress =
  | { readonly kind: "tcp"; readonly host: string; readonly port: number }
  | { readonly kind: "socket"; readonly path: string };

export async function listenOn(server: Server, target: ListenTarget): Promise<BoundAddress> {
  switch (target.kind) {
    case "tcp": {
      server.listen(target.port, target.host);
      await once(server, "listening");
      return { kind: "tcp", host: target.host, port: (server.address() as AddressInfo).port };
    }
    case "socket": {
      const path =
        target.dirFd === undefined
          ? target.path
          : `/proc/self/fd/${String(target.dirFd)}/${target.path}`;
      server.listen(path);
      await once(server, "listening");
      // The bound socket needs no path any more; the folder's descriptor would let whatever
      // boxd runs next reach the socket (and the folder) through /proc/<boxd>/fd.
      if (target.dirFd !== undefined) closeSync(target.dirFd);
      return { kind: "socket", path: target.path };
    }
  }
}
