// Every agent endpoint the API serves has its route file here, answering its method: an agent
// talking to `next start` must find what it finds under serveApi.
import { readFile } from "node:fs/promises";
import { AGENT_ENDPOINTS } from "@berth/api/agentEndpoints";
import { describe, expect, it } from "vitest";

describe("the agent's routes", () => {
  it.each(AGENT_ENDPOINTS.map((endpoint) => [endpoint.path, endpoint]))(
    "%s has a route file calling its handler",
    async (_path, endpoint) => {
      const file = new URL(`..${endpoint.path}/route.ts`, import.meta.url);
      const source = await readFile(file, "utf8");
      expect(source).toMatch(new RegExp(`export (async )?function ${endpoint.method}\\(`));
      expect(source).toContain(`berthApi().${endpoint.handler}(request)`);
    },
  );
});
