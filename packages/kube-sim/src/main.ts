/**
 * `pnpm kube-sim --kubeconfig FILE [--data-dir DIR]`: runs the simulator with the agent-sandbox
 * controller and the fake kubelet until SIGTERM or SIGINT, with a kubeconfig for kubectl and
 * client-node written to FILE. Every image runs the idle process; PVC folders live in DIR (by
 * default a temporary folder removed on exit).
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startKubeSim } from "./kubeSim.ts";

const { values } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    port: { type: "string" },
    "data-dir": { type: "string" },
  },
  strict: true,
});

const sim = await startKubeSim({
  port: values.port === undefined ? 0 : Number(values.port),
  controller: true,
  kubelet: values["data-dir"] === undefined ? {} : { dataDir: values["data-dir"] },
});
if (values.kubeconfig !== undefined) writeFileSync(values.kubeconfig, sim.kubeConfig());
process.stdout.write(
  `kube-sim listening on ${sim.url}${values.kubeconfig === undefined ? "" : ` (kubeconfig: ${values.kubeconfig})`}\n`,
);

const stop = (): void => {
  void sim.close().then(() => {
    process.stdout.write("kube-sim stopped\n");
    process.exit(0);
  });
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
