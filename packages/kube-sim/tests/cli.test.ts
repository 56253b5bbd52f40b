import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import { expect, it } from "vitest";

it("§1 `kube-sim --kubeconfig FILE` writes a plain-HTTP kubeconfig client-node accepts, serves, and exits cleanly on SIGTERM", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-sim-cli-"));
  const config = join(dir, "config");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/main.ts", "--kubeconfig", config],
    {
      cwd: join(import.meta.dirname, ".."),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  try {
    let out = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve();
      });
      child.once("exit", (code) => {
        reject(new Error(`kube-sim exited early with ${String(code)}`));
      });
    });
    expect(out).toMatch(
      /^kube-sim listening on http:\/\/127\.0\.0\.1:\d+ \(kubeconfig: .*config\)\n$/,
    );
    const yaml = readFileSync(config, "utf8");
    expect(yaml).toContain("insecure-skip-tls-verify: true");
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(config);
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe("default");
    const namespaces = await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
    expect(namespaces.items.map((ns) => ns.metadata?.name)).toContain("default");
    const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
