/**
 * A session routed to an enrolled machine is served through the machine's agent channel: its
 * JSON operations, as a BoxClient's, so every procedure runs unchanged. A terminal's output
 * stream (attachTerminal) is made of long-polling reads (machineTerminalAttach.ts), and upload
 * and download of chunks over those operations (machineFileTransfers.ts). What an agent does
 * not serve (health, ready, and the workspace streams capture and hydrate) answers `unsupported`.
 */
import { BoxError, type BoxClient } from "@berth/box-protocol";
import type { MachineTarget } from "../machines/agentChannelTypes.ts";
import type { MachineBoxClient } from "../machines/machineBoxClient.ts";
import { machineDownload, machineUpload } from "./machineFileTransfers.ts";
import { attachMachineTerminal } from "./machineTerminalAttach.ts";

/** A client of one machine in the caller's workspace (machineBoxClient over AgentChannels). */
export type MachineClients = (target: MachineTarget) => MachineBoxClient;

export function machineBox(client: MachineBoxClient, machineId: string): BoxClient {
  const unsupported = (what: string) => () =>
    Promise.reject(
      new BoxError(
        "unsupported",
        `${what} is not served by an enrolled machine yet (machine ${machineId}); swap the session back to its group box for it`,
      ),
    );
  return {
    ...client,
    health: unsupported("health"),
    ready: unsupported("ready"),
    upload: (input) => machineUpload(client, input),
    download: (input) => machineDownload(client, input.path),
    capture: unsupported("capture"),
    hydrate: unsupported("hydrate"),
    attachTerminal: (options) => attachMachineTerminal(client, options),
  };
}
