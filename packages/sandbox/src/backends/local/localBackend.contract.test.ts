import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { localExecutionProfile } from "../../spawner/executionProfile.ts";
import { describeBackendContract } from "../contract/index.ts";
import { instanceIdFor } from "./instanceIds.ts";
import { LocalBackend } from "./localBackend.ts";

// The Backend contract over real boxd boxes: every adapter shares one data folder, each acting
// for the installation it is made for. The folder sits directly under /tmp, so boxd's socket
// paths stay within the 107-byte limit.
describeBackendContract("local", async () => {
  const dataDir = await mkdtemp(join("/tmp", "berth-ct-"));
  const secret = randomBytes(24).toString("hex");
  return {
    adapter: (installationId) =>
      new LocalBackend({
        dataDir,
        secret,
        isolation: "auto",
        installationId: () => Promise.resolve(installationId),
      }),
    profile: localExecutionProfile,
    absentInstanceId: () => instanceIdFor(`never-${randomBytes(4).toString("hex")}`),
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
});
