// A workspace with a real agent enrolled into it and connected, for one test file: the hot-swap
// tests' common ground (issue 41). The API is served over real HTTP, which the agent reaches.
import type { DbClient } from "@berth/db";
import { afterAll, beforeAll } from "vitest";
import { serveApi, type BerthApi, type ServedApi } from "../../src/index.ts";
import { eventually, startRealAgent, type RealAgent } from "./realAgent.ts";
import { callerAs } from "./testApi.ts";
import { seedWorkspace, type SeededWorkspace } from "./world.ts";

export interface EnrolledAgent {
  readonly workspace: SeededWorkspace;
  readonly served: ServedApi;
  readonly agent: RealAgent;
  readonly machineId: string;
}

/** Registers the file's hooks; `current` is ready once its beforeAll ran. */
export function useEnrolledAgent(
  suite: { readonly api: BerthApi; readonly db: DbClient },
  label: string,
): { readonly current: EnrolledAgent } {
  let current: EnrolledAgent | undefined;
  beforeAll(async () => {
    const workspace = await seedWorkspace(suite.api, suite.db, label);
    const served = await serveApi(suite.api);
    const admin = await callerAs(suite.api, { token: workspace.adminToken });
    const { code } = await admin.machines.enroll({ workspaceId: workspace.workspaceId });
    const agent = await startRealAgent({ server: served.url, code, name: "desk" });
    let machineId = "";
    await eventually(
      "the agent's channel",
      async () => {
        const machines = await admin.machines.listWorkspace({
          workspaceId: workspace.workspaceId,
        });
        machineId = machines.find((m) => m.name === "desk")?.id ?? "";
        return machineId !== "" && suite.api.agentChannels.holds(machineId);
      },
      () => agent.output(),
    );
    current = { workspace, served, agent, machineId };
  }, 60_000);
  afterAll(async () => {
    await current?.agent.stop();
    await current?.served.close();
  });
  return {
    get current(): EnrolledAgent {
      if (current === undefined) throw new Error("useEnrolledAgent: its beforeAll has not run");
      return current;
    },
  };
}
