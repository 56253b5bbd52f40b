import { expect, test } from "@playwright/test";
import { startBerthOnKubeSim, type BerthOnKubeSim } from "../berthOnKubeSim.ts";
import { expectPageShown } from "../pageChecks.ts";
import { call, signIn } from "../signedIn.ts";

// Issue 37: `pnpm kube-sim --kubeconfig F`, then `BERTH_BACKEND=kubernetes KUBECONFIG=F
// BERTH_KUBE_TEMPLATE=berth-box BERTH_ALLOW_UNISOLATED=1` start: the demo session's box is a
// Kubernetes box (a Sandbox whose pod runs boxd), shown so in its machines table, unisolated
// (kube-sim's pods are host processes), and its files answer through it.

/** Beside the config's server (BERTH_E2E_PORT, 3100): this spec's own Berth on kube-sim. */
const port = Number(process.env.BERTH_E2E_KUBE_PORT ?? 3101);
test.use({ baseURL: `http://127.0.0.1:${String(port)}` });

let berth: BerthOnKubeSim | undefined;
test.beforeAll(async () => {
  // kube-sim's start, then Berth's with its demo box made on the cluster.
  test.setTimeout(120_000);
  berth = await startBerthOnKubeSim(port);
});
test.afterAll(async () => {
  test.setTimeout(60_000);
  await berth?.stop();
});

test("on kube-sim, the demo session's machines table shows its Kubernetes box", async ({
  page,
}, testInfo) => {
  await signIn(page);
  const sessions = page.getByRole("region", { name: "Sessions" });
  await sessions.getByRole("link", { name: "Demo", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Demo", level: 1 })).toBeVisible();
  const machines = page.getByRole("region", { name: "Machines" });
  await expect(machines.getByTestId("machine-backend")).toHaveText("kubernetes");
  await expect(machines.getByTestId("machine-state")).toHaveText("warm");
  // A simulated cluster's box is unisolated, on the host's network, with the warning badge.
  const isolation = machines.getByTestId("machine-isolation");
  await expect(isolation.locator(".badge-warning")).toHaveText("unisolated");
  await expect(isolation).toContainText("network host");

  // The box serves the session's files: the demo workspace's, through boxd in the pod.
  const url = new URL(page.url());
  const scope = {
    workspaceId: url.searchParams.get("workspace") ?? "",
    sessionId: url.pathname.split("/").at(-1) ?? "",
  };
  await call(page, {
    path: "fs.write",
    input: { ...scope, path: "on-kube.txt", content: "hello from a pod" },
    kind: "mutation",
  });
  const read = (await call(page, {
    path: "fs.read",
    input: { ...scope, path: "on-kube.txt" },
    kind: "query",
  })) as { content: string };
  expect(read.content).toBe("hello from a pod");
  await expectPageShown(page, testInfo, { name: "session-kube-sim", heading: "Demo" });
});
