import { createServer } from "node:net";

/** Why the dashboard's address cannot be listened on. */
export type ListenFailure = "in_use" | "forbidden" | "no_such_address";

/** The dashboard cannot listen on HOST:PORT; the message says what to change. */
export class ListenFailedError extends Error {
  override readonly name = "ListenFailedError";
  readonly failure: ListenFailure;
  readonly host: string;
  readonly port: number;
  constructor(options: {
    readonly failure: ListenFailure;
    readonly host: string;
    readonly port: number;
    readonly cause: unknown;
  }) {
    super(advice(options.failure, options.host, options.port), { cause: options.cause });
    this.failure = options.failure;
    this.host = options.host;
    this.port = options.port;
  }
}

/** The listen errors (their `code`) this file knows. */
const FAILURES = new Map<string, ListenFailure>([
  ["EADDRINUSE", "in_use"],
  ["EACCES", "forbidden"],
  ["EADDRNOTAVAIL", "no_such_address"],
  // A HOST that is a name no resolver knows (or none answered for).
  ["ENOTFOUND", "no_such_address"],
  ["EAI_AGAIN", "no_such_address"],
]);

/** The failure a listen error stands for, or undefined for one this file does not know. */
export function classifyListenError(error: unknown): ListenFailure | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === undefined ? undefined : FAILURES.get(code);
}

/**
 * Listens on host:port and closes at once: whether the web server can listen there, told before
 * anything starts. It narrows the window, not closes it (another program may take the port
 * later); the web server's own listen, and the launcher's readiness proof, cover the rest.
 */
export async function checkCanListen(host: string, port: number): Promise<void> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (error) {
    const failure = classifyListenError(error);
    if (failure === undefined) throw error;
    throw new ListenFailedError({ failure, host, port, cause: error });
  }
  await new Promise((resolve) => server.close(resolve));
}

function advice(failure: ListenFailure, host: string, port: number): string {
  switch (failure) {
    case "in_use":
      return (
        `Port ${String(port)} on ${host} is already in use: another program listens there ` +
        `(an earlier Berth that is still running?). Stop it, or start with another PORT.`
      );
    case "forbidden":
      return (
        `Berth may not listen on ${host}:${String(port)} (ports below 1024 need privileges): ` +
        `start with another PORT.`
      );
    case "no_such_address":
      return (
        `Berth cannot listen on ${host}: it is not an address of this machine. Set HOST to one ` +
        `(the default is 127.0.0.1).`
      );
  }
}
