import { Alert, AlertDescription, AlertTitle } from "@berth/ui/alert";
import { Button } from "@berth/ui/button";
import { EmptyIcon } from "../../icons.tsx";
import type { GitWrites } from "./useGitWrites.ts";

/** /workspace has no repository yet: say so, and offer to make one (`git init` in the box). */
export function InitRepository({ writes }: { writes: GitWrites }) {
  return (
    <Alert variant="empty">
      <EmptyIcon />
      <AlertTitle>The workspace is not a git repository yet</AlertTitle>
      <AlertDescription className="flex flex-col items-start gap-3">
        <p>Initialize one to track changes, or clone one into the workspace from the terminal.</p>
        <Button
          size="sm"
          disabled={writes.busy}
          onClick={() =>
            writes.init.mutate({ ...writes.scope, argv: ["git", "init", "-q", "-b", "main"] })
          }
        >
          Initialize repository
        </Button>
      </AlertDescription>
    </Alert>
  );
}
