/**
 * The pre-dispatch step of the HTTP edge: logs every request and applies the first fault rule
 * that fires. Latency and hangs use real time, not the injected clock: they model the transport,
 * which client timeouts and aborts also measure in real time, and a delay that waited on a manual
 * clock would deadlock a test awaiting the response before it moves the clock.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { PreDispatch } from "../httpServer.ts";
import type { ResourceRegistry } from "../resourceTypes.ts";
import type { FaultInjector } from "./faultRules.ts";
import { faultError } from "./faultStatus.ts";
import type { LoggedRequest, RequestLog } from "./requestLog.ts";
import { requestInfo } from "./requestInfo.ts";

function track(entry: LoggedRequest, res: ServerResponse): void {
  res.on("finish", () => {
    entry.status = res.statusCode;
    entry.finishedAt = new Date();
  });
  res.on("close", () => {
    if (res.writableFinished) return;
    entry.aborted = true;
    entry.finishedAt = new Date();
    if (res.headersSent) entry.status = res.statusCode;
  });
}

/** Resolves after `ms`, or at once when the client goes away first. */
function delay(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      res.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.on("close", done);
  });
}

/**
 * Ends a watch cleanly in place of event `afterEvents + 1`: each event is one write of one line
 * (watchStream.ts), so counting writes counts events. Later writes are dropped, not failed.
 */
function dropWatchAfter(res: ServerResponse, afterEvents: number): void {
  let sent = 0;
  let dropped = false;
  const write = res.write.bind(res) as (chunk: string) => boolean;
  res.write = ((chunk: string) => {
    if (dropped) return true;
    if (sent >= afterEvents) {
      dropped = true;
      res.end();
      return true;
    }
    sent++;
    return write(chunk);
  }) as ServerResponse["write"];
}

export function faultInterceptor($: {
  types: ResourceRegistry;
  faults: FaultInjector;
  log: RequestLog;
}): PreDispatch {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const info = requestInfo(req, $.types);
    const entry = $.log.record(info, req);
    track(entry, res);
    const rule = $.faults.choose(info);
    if (rule === undefined) return "continue";
    const { effect } = rule.spec;
    entry.fault = effect;
    switch (effect.kind) {
      case "status": {
        const error = faultError(info, effect);
        const headers: Record<string, string> = { "Content-Type": "application/json" };
        if (effect.retryAfterSeconds !== undefined || effect.code === 429) {
          headers["Retry-After"] = String(effect.retryAfterSeconds ?? 1);
        }
        res.writeHead(error.code, headers);
        res.end(JSON.stringify(error.toStatus()));
        return "answered";
      }
      case "latency":
        await delay(res, effect.ms);
        return res.destroyed ? "answered" : "continue";
      case "hang": {
        const held = rule.hold();
        res.once("close", held.cancel);
        await held.released;
        res.off("close", held.cancel);
        return res.destroyed ? "answered" : "continue";
      }
      case "dropWatch":
        if (info.verb === "watch") dropWatchAfter(res, effect.afterEvents ?? 0);
        return "continue";
    }
  };
}
