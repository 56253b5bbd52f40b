/**
 * Every request the server received, for tests to assert on: what it was, how it was answered
 * and which fault, if any, it met. Bounded: the oldest entries go first.
 */
import type { IncomingMessage } from "node:http";
import type { FaultEffect } from "./faultRules.ts";
import type { RequestInfo, Verb } from "./requestInfo.ts";

export interface LoggedRequest {
  /** 1, 2, 3… in arrival order; keeps counting after `clear()`. */
  seq: number;
  method: string;
  path: string;
  query: Record<string, string>;
  verb: Verb;
  group: string | undefined;
  version: string | undefined;
  resource: string | undefined;
  subresource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
  /** The request's Content-Type. */
  contentType: string | undefined;
  /**
   * The request body exactly as the server read it (UTF-8 text, `""` when there was none), so a
   * test can assert on the bytes a client sent; undefined while unread, and for a request
   * answered before its body was read (a status fault, a client that left during a hang).
   */
  body: string | undefined;
  fieldManager: string | undefined;
  dryRun: boolean;
  /** The answer's HTTP status; undefined while in flight or when the client left first. */
  status: number | undefined;
  /** Wall-clock time: the request log measures the transport, not the simulated clock. */
  receivedAt: Date;
  finishedAt: Date | undefined;
  /** The client went away before the answer was complete. */
  aborted: boolean;
  fault: FaultEffect | undefined;
}

/** Matching fields of an entry (each given field must be equal), or a predicate. */
export type RequestQuery =
  | Partial<Omit<LoggedRequest, "query" | "receivedAt" | "finishedAt" | "fault">>
  | ((entry: LoggedRequest) => boolean);

export const DEFAULT_REQUEST_LOG_LIMIT = 10_000;

export class RequestLog {
  private entries: LoggedRequest[] = [];
  private seq = 0;
  /** The entry of each request still in the server's hands, so its body can be added later. */
  private readonly byRequest = new WeakMap<IncomingMessage, LoggedRequest>();

  constructor(private readonly limit = DEFAULT_REQUEST_LOG_LIMIT) {}

  /** Records an arriving request; the HTTP layer fills in the answer on the returned entry. */
  record(info: RequestInfo, req?: IncomingMessage): LoggedRequest {
    const entry: LoggedRequest = {
      seq: ++this.seq,
      method: info.method,
      path: info.path,
      query: info.query,
      verb: info.verb,
      group: info.group,
      version: info.version,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
      contentType: info.contentType,
      body: undefined,
      fieldManager: info.fieldManager,
      dryRun: info.dryRun,
      status: undefined,
      receivedAt: new Date(),
      finishedAt: undefined,
      aborted: false,
      fault: undefined,
    };
    this.entries.push(entry);
    if (this.entries.length > this.limit) this.entries.shift();
    if (req !== undefined) this.byRequest.set(req, entry);
    return entry;
  }

  /** Adds the body the HTTP layer read to the entry `record` made for this request. */
  recordBody(req: IncomingMessage, body: string): void {
    const entry = this.byRequest.get(req);
    if (entry !== undefined) entry.body = body;
  }

  /** Every kept entry, oldest first (copies: the log's own entries keep changing). */
  all(): LoggedRequest[] {
    return this.entries.map((entry) => ({ ...entry }));
  }

  filter(query: RequestQuery): LoggedRequest[] {
    const predicate =
      typeof query === "function"
        ? query
        : (entry: LoggedRequest): boolean =>
            Object.entries(query).every(
              ([key, value]) => entry[key as keyof LoggedRequest] === value,
            );
    return this.all().filter(predicate);
  }

  last(query: RequestQuery = () => true): LoggedRequest | undefined {
    return this.filter(query).at(-1);
  }

  clear(): void {
    this.entries = [];
  }
}
