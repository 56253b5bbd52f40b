import { Button } from "@berth/ui/button";
import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { Select } from "@berth/ui/select";
import { Skeleton } from "@berth/ui/skeleton";
import { useQuery } from "@tanstack/react-query";
import { formText } from "../../../lib/formText.ts";
import { submitHandler } from "../../../lib/submitHandler.ts";
import { useTRPC } from "../../../trpc/react.tsx";
import { ErrorAlert } from "../../errorAlert.tsx";
import { gitFailure } from "./gitErrors.ts";
import type { GitWrites } from "./useGitWrites.ts";

/**
 * The current branch, a switch to another, and a new branch from here. Switching is a form with
 * its own button rather than a change of the select, so browsing the list moves nothing.
 */
export function BranchControls({ writes }: { writes: GitWrites }) {
  const trpc = useTRPC();
  const branches = useQuery(trpc.git.branches.queryOptions(writes.scope));
  if (branches.isPending)
    return (
      <div aria-busy="true">
        <span className="sr-only">Loading branches</span>
        <Skeleton className="h-9 w-72" />
      </div>
    );
  if (branches.isError)
    return <ErrorAlert error={gitFailure(branches.error)} prefix="Could not load the branches" />;
  const { current } = branches.data;
  const others = branches.data.branches.filter((branch) => !branch.current);
  return (
    <div className="flex flex-wrap items-end gap-x-6 gap-y-3">
      <p className="text-sm" data-testid="git-branch">
        {current === null ? (
          "HEAD is detached"
        ) : (
          <>
            On branch <code className="font-semibold">{current}</code>
          </>
        )}
        {branches.data.branches.length === 0 ? (
          <span className="text-muted-foreground"> (no commits yet)</span>
        ) : null}
      </p>
      <form
        aria-label="Switch branch"
        className="flex items-end gap-2"
        onSubmit={submitHandler((fields) => {
          const branch = formText(fields, "branch");
          if (branch !== "") writes.checkout.mutate({ ...writes.scope, branch });
        })}
      >
        <Label className="w-48">
          Switch to
          <Select name="branch" disabled={others.length === 0} defaultValue="">
            {/* Not a disabled option: the label greys out when anything inside it is disabled. */}
            <option value="">{others.length === 0 ? "No other branch" : "Choose a branch"}</option>
            {others.map((branch) => (
              <option key={branch.name} value={branch.name}>
                {branch.name}
              </option>
            ))}
          </Select>
        </Label>
        <Button type="submit" variant="outline" disabled={others.length === 0 || writes.busy}>
          Switch
        </Button>
      </form>
      <form
        aria-label="New branch"
        className="flex items-end gap-2"
        onSubmit={submitHandler((fields, form) => {
          const branch = formText(fields, "name").trim();
          if (branch === "") return;
          writes.checkout.mutate(
            { ...writes.scope, branch, create: true },
            { onSuccess: () => form.reset() },
          );
        })}
      >
        <Label className="w-48">
          New branch
          <Input name="name" required maxLength={200} placeholder="feature/…" />
        </Label>
        <Button type="submit" variant="outline" disabled={writes.busy}>
          Create
        </Button>
      </form>
    </div>
  );
}
