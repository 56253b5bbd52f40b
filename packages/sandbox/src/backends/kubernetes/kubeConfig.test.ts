import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KubeClient } from "./kubeClient.ts";
import { KubeConfigError, loadKubeConfig } from "./kubeConfig.ts";
import { SANDBOX } from "./kubeObjects.ts";
import { SECRET_TOKEN, simClient } from "./tests/simClient.ts";

function kubeconfig(server: string, namespace?: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{ name: c, cluster: { server: "${server}" } }]`,
    `users: [{ name: u, user: { token: ${SECRET_TOKEN} } }]`,
    `contexts: [{ name: x, context: { cluster: c, user: u${namespace === undefined ? "" : `, namespace: ${namespace}`} } }]`,
    "current-context: x",
  ].join("\n");
}

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

async function folder(): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), "berth-kubeconfig-"));
  folders.push(path);
  return path;
}

describe("loadKubeConfig", () => {
  it("takes the namespace from the context, else default; an explicit one wins", () => {
    const text = kubeconfig("https://10.0.0.1:6443", "berth");
    expect(loadKubeConfig({ kind: "yaml", text }).namespace).toBe("berth");
    expect(loadKubeConfig({ kind: "yaml", text }, "other").namespace).toBe("other");
    expect(
      loadKubeConfig({ kind: "yaml", text: kubeconfig("https://10.0.0.1:6443") }).namespace,
    ).toBe("default");
  });

  it("refuses what cannot work before contacting anything, without quoting the file", async () => {
    const path = join(await folder(), "config");
    await writeFile(
      path,
      `${kubeconfig("https://10.0.0.1:6443")}\n  : [unbalanced ${SECRET_TOKEN}`,
    );
    const refusals = [
      () => loadKubeConfig({ kind: "file", path }),
      () => loadKubeConfig({ kind: "file", path: join(tmpdir(), "no-such-kubeconfig") }),
      () => loadKubeConfig({ kind: "yaml", text: kubeconfig("not a url") }),
      () => loadKubeConfig({ kind: "yaml", text: "apiVersion: v1\nkind: Config\n" }),
      () =>
        loadKubeConfig({ kind: "yaml", text: kubeconfig("https://10.0.0.1:6443") }, "Not_A_Label"),
    ];
    for (const refuse of refusals) {
      let error: unknown;
      try {
        refuse();
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(KubeConfigError);
      expect((error as Error).message).not.toContain(SECRET_TOKEN);
    }
  });

  it("in-cluster: refuses a pod without a service account token", async () => {
    const prefix = await folder();
    expect(() => loadKubeConfig({ kind: "in-cluster", pathPrefix: prefix })).toThrow(
      /no service account token/,
    );
  });

  it("in-cluster: reads the service account's namespace, and refuses when the API server's address is unset", async () => {
    const prefix = await folder();
    const account = join(prefix, "var/run/secrets/kubernetes.io/serviceaccount");
    await mkdir(account, { recursive: true });
    await writeFile(join(account, "token"), SECRET_TOKEN);
    await writeFile(join(account, "namespace"), "berth-system");
    const saved = {
      host: process.env.KUBERNETES_SERVICE_HOST,
      port: process.env.KUBERNETES_SERVICE_PORT,
    };
    try {
      process.env.KUBERNETES_SERVICE_HOST = "10.96.0.1";
      process.env.KUBERNETES_SERVICE_PORT = "443";
      const loaded = loadKubeConfig({ kind: "in-cluster", pathPrefix: prefix });
      expect(loaded).toMatchObject({ namespace: "berth-system", server: "https://10.96.0.1:443" });
      delete process.env.KUBERNETES_SERVICE_HOST;
      delete process.env.KUBERNETES_SERVICE_PORT;
      expect(() => loadKubeConfig({ kind: "in-cluster", pathPrefix: prefix })).toThrow(
        /KUBERNETES_SERVICE_HOST/,
      );
    } finally {
      if (saved.host === undefined) delete process.env.KUBERNETES_SERVICE_HOST;
      else process.env.KUBERNETES_SERVICE_HOST = saved.host;
      if (saved.port === undefined) delete process.env.KUBERNETES_SERVICE_PORT;
      else process.env.KUBERNETES_SERVICE_PORT = saved.port;
    }
  });

  it("a kubeconfig file drives a client against the server it names", async () => {
    await using f = await simClient();
    const path = join(await folder(), "config");
    await writeFile(path, f.kubeConfigText);
    const client = new KubeClient({ source: { kind: "file", path } });
    const items = await client.list(client.operation({ label: "t", timeoutMs: 5000 }), SANDBOX);
    expect(items).toEqual([]);
    expect(client.namespace).toBe("default");
    expect(f.sim.requests.last({ resource: "sandboxes" })?.status).toBe(200);
  });
});
