/**
 * A machine's JSON box operations as the methods a BoxClient has (same names, same types),
 * each one a call through the machine's agent channel: so box services can route a session to
 * an enrolled machine (issue 41) as they route it to a box.
 */
import { boxOperations, type BoxClient, type BoxOperationName } from "@berth/box-protocol";
import type { AgentCallOptions, MachineTarget } from "./agentChannelTypes.ts";
import type { AgentChannels } from "./agentChannels.ts";

/**
 * The JSON operations of a BoxClient, terminals' included; streams and terminal attach are not
 * served by agents.
 */
export type MachineBoxClient = Pick<BoxClient, BoxOperationName>;

/** A client of one machine, in the caller's workspace; every method rejects with a BoxError. */
export function machineBoxClient(
  channels: AgentChannels,
  target: MachineTarget,
  options: AgentCallOptions = {},
): MachineBoxClient {
  const call = (name: BoxOperationName, input: unknown) =>
    channels.call({ ...target, ...options }, name, input ?? {});
  return Object.fromEntries(
    (Object.keys(boxOperations) as BoxOperationName[]).map((name) => [
      name,
      (input?: unknown) => call(name, input),
    ]),
  ) as unknown as MachineBoxClient;
}
