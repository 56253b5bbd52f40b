/**
 * Watch (§4.8): newline-delimited JSON events on a chunked 200 response whose headers are flushed
 * at once (client-node's watch resolves only then), started from the requested resourceVersion.
 */
import type { ServerResponse } from "node:http";
import { badRequest, expired } from "./errors.ts";
import type { KubeObject } from "./objects.ts";
import { meta } from "./objects.ts";
import type { Matcher } from "./selectors.ts";
import type { StoreEvent } from "./store.ts";
import type { ObjectStore } from "./store.ts";
import type { ResourceType } from "./resourceTypes.ts";
import { groupVersion } from "./resourceTypes.ts";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchRequest {
  type: ResourceType;
  version: string;
  resource: string;
  namespace: string | undefined;
  matches: Matcher;
  resourceVersion: string | undefined;
  bookmarks: boolean;
  timeoutSeconds: number | undefined;
  /** The stored object as the request's version shows it. */
  present: (object: KubeObject) => KubeObject;
}

/** Open watches, so the server (and tests) can close them all at any moment. */
export class WatchHub {
  private readonly open = new Set<() => void>();

  add(close: () => void): () => void {
    this.open.add(close);
    return () => this.open.delete(close);
  }

  /** Ends every open watch stream cleanly; clients see the stream close and reconnect. */
  closeAll(): void {
    for (const close of [...this.open]) close();
  }

  get size(): number {
    return this.open.size;
  }
}

function parseStart(value: string | undefined): number | undefined {
  if (value === undefined || value === "" || value === "0") return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`invalid resource version: ${value}`);
  return Number(value);
}

/**
 * What one store event becomes for a filtered watch: objects that start matching arrive as
 * ADDED, objects that stop matching leave as DELETED (§4.8 filtering).
 */
function translate(
  event: StoreEvent,
  request: WatchRequest,
): { type: WatchEventType; object: KubeObject } | undefined {
  if (event.resource !== request.resource) return undefined;
  const inScope = (object: KubeObject | undefined): boolean =>
    object !== undefined &&
    (request.namespace === undefined || meta(object).namespace === request.namespace) &&
    request.matches(object);
  const now = event.type !== "DELETED" && inScope(event.object);
  const before = event.type !== "ADDED" && inScope(event.previous);
  if (event.type === "DELETED")
    return before ? { type: "DELETED", object: event.object } : undefined;
  if (now && before) return { type: "MODIFIED", object: event.object };
  if (now) return { type: "ADDED", object: event.object };
  if (before) return { type: "DELETED", object: event.object };
  return undefined;
}

export function serveWatch(
  res: ServerResponse,
  request: WatchRequest,
  env: { store: ObjectStore; hub: WatchHub; warnings: string[] },
): void {
  const { store, hub } = env;
  const start = parseStart(request.resourceVersion);
  res.writeHead(200, {
    "Content-Type": "application/json",
    "Transfer-Encoding": "chunked",
    ...(env.warnings.length > 0 ? { Warning: env.warnings } : {}),
  });
  res.flushHeaders();
  const send = (type: WatchEventType, object: KubeObject): void => {
    res.write(`${JSON.stringify({ type, object })}\n`);
  };
  const bookmark = (): void => {
    if (!request.bookmarks) return;
    send("BOOKMARK", {
      kind: request.type.kind,
      apiVersion: groupVersion(request.type, request.version),
      metadata: { resourceVersion: String(store.currentRevision) },
    });
  };

  if (start === undefined) {
    // Unset or "0": the current state as synthetic ADDED events, then live events.
    for (const object of store.list(request.resource, request.namespace)) {
      if (request.matches(object)) send("ADDED", request.present(object));
    }
  } else {
    const backlog = store.eventsSince(start);
    if (backlog === undefined) {
      // A compacted version is answered inside the stream, then the stream ends (K11).
      send("ERROR", expired(String(start), store.compactedRevision).toStatus());
      res.end();
      return;
    }
    for (const event of backlog) {
      const translated = translate(event, request);
      if (translated) send(translated.type, request.present(translated.object));
    }
  }
  bookmark();

  let timer: NodeJS.Timeout | undefined;
  const close = (): void => {
    unsubscribe();
    untrack();
    if (timer !== undefined) clearTimeout(timer);
    if (!res.writableEnded) res.end();
  };
  const unsubscribe = store.subscribe((event) => {
    // Listeners run inside the writer's request: a watch that cannot encode an event ends (the
    // client reconnects) instead of failing the write that produced it.
    try {
      const translated = translate(event, request);
      if (translated) send(translated.type, request.present(translated.object));
    } catch {
      close();
    }
  });
  const untrack = hub.add(close);
  if (request.timeoutSeconds !== undefined && request.timeoutSeconds > 0) {
    timer = setTimeout(() => {
      bookmark();
      close();
    }, request.timeoutSeconds * 1000);
  }
  res.on("close", close);
}
