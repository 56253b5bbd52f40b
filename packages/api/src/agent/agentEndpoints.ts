import { AGENT_ROUTES } from "@berth/box-protocol";
import type { BerthApi } from "../api.ts";

/**
 * The enrolled machines' agent endpoints (AGENT_ROUTES): path, method and BerthApi handler. The
 * web app maps each in a route file of its own (apps/web/src/app/agent/…, checked by its test).
 */
export const AGENT_ENDPOINTS = [
  { path: AGENT_ROUTES.enroll, method: "POST", handler: "handleAgentEnroll" },
  { path: AGENT_ROUTES.channel, method: "GET", handler: "handleAgentChannel" },
  { path: AGENT_ROUTES.replies, method: "POST", handler: "handleAgentReplies" },
  { path: AGENT_ROUTES.rotate, method: "POST", handler: "handleAgentRotate" },
  { path: AGENT_ROUTES.bundle, method: "GET", handler: "handleAgentBundle" },
] as const satisfies readonly {
  path: string;
  method: "GET" | "POST";
  handler: keyof BerthApi;
}[];
