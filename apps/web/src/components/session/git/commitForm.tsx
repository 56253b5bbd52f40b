import { Button } from "@berth/ui/button";
import { fieldClasses } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { cn } from "@berth/ui/cn";
import { useState } from "react";
import type { GitWrites } from "./useGitWrites.ts";

/** A message and the Commit button, which waits for both a message and something staged. */
export function CommitForm({ writes, stagedCount }: { writes: GitWrites; stagedCount: number }) {
  const [message, setMessage] = useState("");
  const ready = message.trim() !== "" && stagedCount > 0 && !writes.busy;
  return (
    <form
      aria-label="Commit"
      className="flex flex-col gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        if (!ready) return;
        writes.commit.mutate({ ...writes.scope, message }, { onSuccess: () => setMessage("") });
      }}
    >
      <Label>
        Commit message
        <textarea
          name="message"
          rows={3}
          value={message}
          onChange={(event) => setMessage(event.target.value)}
          className={cn(fieldClasses, "h-auto py-2 font-normal")}
          placeholder="What the change does, and why"
        />
      </Label>
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={!ready}>
          Commit
        </Button>
        <p className="text-xs text-muted-foreground">
          {stagedCount === 0
            ? "Stage a file to commit it."
            : `${String(stagedCount)} staged file${stagedCount === 1 ? "" : "s"} will be committed.`}
        </p>
      </div>
    </form>
  );
}
