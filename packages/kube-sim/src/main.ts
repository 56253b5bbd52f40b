/**
 * `pnpm kube-sim --kubeconfig FILE [--config FILE] [--port N] [--data-dir DIR]`: runs the
 * simulator with the agent-sandbox controller and the fake kubelet until SIGTERM or SIGINT, with
 * a kubeconfig for kubectl and client-node written to FILE. Without `--config` every image runs
 * the idle process; with it, the config's runtimes map images to commands, its manifests are
 * applied once the server listens, and its notice is printed (src/cli/simConfig.ts). PVC folders
 * live in DIR (by default a temporary folder removed on exit). Stopping removes nothing else:
 * the kubeconfig stays where it was asked for.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { applyManifests } from "./cli/applyManifests.ts";
import type { SimConfig } from "./cli/simConfig.ts";
import { loadSimConfig } from "./cli/simConfig.ts";
import { startKubeSim } from "./kubeSim.ts";

const { values } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    port: { type: "string" },
    "data-dir": { type: "string" },
    config: { type: "string" },
  },
  strict: true,
});

const config: SimConfig | undefined =
  values.config === undefined ? undefined : loadSimConfig(values.config);
const sim = await startKubeSim({
  port: values.port === undefined ? 0 : Number(values.port),
  controller: true,
  kubelet: {
    ...(config === undefined ? {} : { runtimes: config.runtimes }),
    ...(values["data-dir"] === undefined ? {} : { dataDir: values["data-dir"] }),
  },
});

const stop = (code: number): void => {
  void sim.close().then(() => {
    process.stdout.write("kube-sim stopped\n");
    process.exit(code);
  });
};
process.once("SIGTERM", () => {
  stop(0);
});
process.once("SIGINT", () => {
  stop(0);
});
// pnpm does not pass a SIGTERM on to the script it runs: when whoever started the simulator is
// gone (its parent changed), stop as if signalled, rather than serve and run pods unowned.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop(0);
}, 1_000).unref();

if (values.kubeconfig !== undefined) writeFileSync(values.kubeconfig, sim.kubeConfig());
process.stdout.write(
  `kube-sim listening on ${sim.url}${values.kubeconfig === undefined ? "" : ` (kubeconfig: ${values.kubeconfig})`}\n`,
);
if (config !== undefined) {
  try {
    const applied = await applyManifests({
      url: sim.url,
      types: sim.types.types,
      files: config.apply,
    });
    for (const object of applied) {
      const where = object.namespace === undefined ? "" : `${object.namespace}/`;
      process.stdout.write(`applied ${object.kind} ${where}${object.name}\n`);
    }
  } catch (error) {
    process.stderr.write(`kube-sim: ${error instanceof Error ? error.message : String(error)}\n`);
    stop(1);
  }
  for (const [image, spec] of Object.entries(config.runtimeSpecs)) {
    process.stdout.write(`image ${image} runs: ${spec.command.join(" ")}\n`);
  }
  if (config.notice !== undefined) {
    const notice = config.notice
      .replaceAll("$(KUBECONFIG)", values.kubeconfig ?? "<kubeconfig>")
      .replaceAll("$(URL)", sim.url);
    process.stdout.write(notice.endsWith("\n") ? notice : `${notice}\n`);
  }
}
