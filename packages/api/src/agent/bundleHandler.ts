/**
 * GET /agent/boxd.mjs: the single-file agent (`node boxd.mjs agent …`), served by Berth so a
 * machine needs only Node to join. `pnpm turbo run build` writes it beside boxd's entry
 * (apps/boxd/dist/boxd.mjs); it is streamed from there, never held whole per request.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { agentError } from "./agentHttp.ts";

/** The bundle's file, beside boxd's entry (apps/boxd/dist/main.mjs). */
export function agentBundlePath(boxdEntry: string): string {
  return join(dirname(boxdEntry), "boxd.mjs");
}

export function createBundleHandler(options: {
  readonly bundlePath: string;
}): (request: Request) => Promise<Response> {
  const { bundlePath } = options;
  return async () => {
    const found = await stat(bundlePath).catch(() => undefined);
    if (found?.isFile() !== true)
      return agentError(
        503,
        "unavailable",
        `the agent bundle ${bundlePath} is missing: run \`pnpm turbo run build\``,
      );
    const body = Readable.toWeb(createReadStream(bundlePath)) as ReadableStream<Uint8Array>;
    return new Response(body, {
      headers: {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "no-store",
      },
    });
  };
}
