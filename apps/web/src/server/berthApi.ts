import "server-only";
import { createBerthApi, type BerthApi } from "@berth/api";
import { readWebEnv } from "../env.ts";

// One API (and so one database pool) per server process, kept across dev-mode reloads.
const holder = globalThis as typeof globalThis & { berthApi?: BerthApi };

export function berthApi(): BerthApi {
  holder.berthApi ??= createBerthApi(readWebEnv());
  return holder.berthApi;
}
