/**
 * The one place kube-sim reads its own environment: the PATH containers start with, so runtime
 * commands such as `sleep` or `node` resolve as they do for whoever started the simulator.
 */
export function containerBaseEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { PATH: source.PATH ?? "/usr/local/bin:/usr/bin:/bin" };
}
