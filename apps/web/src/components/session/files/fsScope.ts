import { useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../../../trpc/react.tsx";

/** Which session's box the files panel works on: every fs call and transfer carries it. */
export interface FsScope {
  readonly workspaceId: string;
  readonly sessionId: string;
}

/**
 * What a write makes stale: the listing of the folder it changed (names, sizes) and the
 * machines table (the workspace generation moved). The session's event stream refreshes the
 * table too; asking here as well keeps the page right if that stream has stopped.
 */
export function useAfterWrite(scope: FsScope) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return {
    refreshFolder: (folder: string) =>
      queryClient.invalidateQueries(trpc.fs.list.queryFilter({ ...scope, path: folder })),
    refreshMachines: () => queryClient.invalidateQueries(trpc.machines.list.queryFilter(scope)),
  };
}
