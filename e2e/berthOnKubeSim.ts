// The README's "Try it on kube-sim", as a person runs it: the root `kube-sim` script in one
// process, then Berth's start entry (through serve.ts: a fresh database and data folder) with
// BERTH_BACKEND=kubernetes on its kubeconfig, the demo box on. For the one spec that needs it;
// the other specs share the config's web server.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repoRoot = join(import.meta.dirname, "..");

export interface BerthOnKubeSim {
  readonly url: string;
  /** SIGTERM to Berth, then to kube-sim (whose kubelet ends the boxes' processes). */
  stop(): Promise<void>;
}

export async function startBerthOnKubeSim(port: number): Promise<BerthOnKubeSim> {
  const dir = await mkdtemp(join(tmpdir(), "berth-e2e-kube-"));
  const kubeconfig = join(dir, "kube.yaml");
  // The root script itself (package.json), with the flag the README gives it.
  const rootScripts = (
    JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const kubeSim = spawn(
    "sh",
    ["-c", `exec ${rootScripts["kube-sim"] ?? ""} "$0"`, `--kubeconfig=${kubeconfig}`],
    {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let berth: ChildProcess | undefined;
  const stop = async () => {
    await stopChild(berth);
    await stopChild(kubeSim);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // Its notice ends the start-up: manifests applied, images mapped.
    await outputLine(kubeSim, /Stop with Ctrl-C/, "kube-sim");
    berth = spawn(process.execPath, ["--import", "tsx", "serve.ts"], {
      cwd: import.meta.dirname,
      env: {
        ...process.env,
        PORT: String(port),
        BERTH_BACKEND: "kubernetes",
        KUBECONFIG: kubeconfig,
        BERTH_KUBE_TEMPLATE: "berth-box",
        BERTH_ALLOW_UNISOLATED: "1",
        // The demo session's box is what the spec looks at.
        BERTH_E2E_DEMO_BOX: "on",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    await outputLine(berth, /Berth is running at/, "Berth");
    return { url: `http://127.0.0.1:${String(port)}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Resolves at the first line of the child's output matching `pattern`; rejects if it exits first. */
function outputLine(child: ChildProcess, pattern: RegExp, name: string): Promise<void> {
  let seen = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      reject(
        new Error(
          `${name} exited (${String(code)}) before ${String(pattern)}:\n${seen.slice(-4_000)}`,
        ),
      );
    });
  });
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}
