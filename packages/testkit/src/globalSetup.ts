import { readTestAdminUrl } from "@berth/db";
import { ensureTemplate } from "./template.ts";
import { sweepLeftoverDatabases } from "./sweep.ts";

/**
 * Vitest globalSetup: build the template once per run and drop what dead runs left behind.
 * Use it with `globalSetup: ["@berth/testkit/globalSetup"]`.
 */
export default async function setup(): Promise<void> {
  const adminUrl = readTestAdminUrl();
  const template = await ensureTemplate({ adminUrl });
  await sweepLeftoverDatabases({ adminUrl, keepTemplate: template });
}
