"use client";

import { Button } from "@berth/ui/button";
import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { formText } from "../../lib/formText.ts";
import { formatTime } from "../../lib/formatTime.ts";
import { submitHandler } from "../../lib/submitHandler.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { CopyField } from "../copyField.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { Section } from "../section.tsx";
import { SubmitButton } from "../submitButton.tsx";

/**
 * An admin's way to enroll a machine: a one-time code, shown with the two steps to run on the
 * machine (fetch the agent Berth serves, run it with the code). The code is in the answer only
 * (Berth keeps its hash), so it stays here until dismissed or replaced by the next one.
 */
export function EnrollPanel({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const enroll = useMutation(
    trpc.machines.enroll.mutationOptions({
      onSettled: () => queryClient.invalidateQueries(trpc.audit.pathFilter()),
    }),
  );
  const answer = enroll.data;

  return (
    <Section
      title="Enroll a machine"
      description={
        <>
          A machine of yours (Linux, Node 20 or later) joins this workspace with a one-time code and
          runs Berth&apos;s agent, which dials out to Berth: the machine opens no port.
        </>
      }
    >
      <form
        aria-label="Enroll a machine"
        className="flex flex-wrap items-end gap-3"
        onSubmit={submitHandler((fields) => {
          enroll.mutate({ workspaceId, ttlMinutes: Number(formText(fields, "ttl")) });
        })}
      >
        <Label className="w-44">
          Code valid for (minutes)
          <Input name="ttl" type="number" min={1} max={60} step={1} defaultValue={10} required />
        </Label>
        <SubmitButton busy={enroll.isPending}>Enroll a machine</SubmitButton>
      </form>
      <ErrorAlert error={enroll.error} prefix="Could not make an enrollment code" />
      {answer === undefined ? null : (
        <div
          className="flex flex-col gap-3 rounded-lg border border-success/30 bg-success/5 p-4"
          data-testid="enrollment"
        >
          <p className="text-sm">
            Code <code data-testid="enroll-code">{answer.code}</code>: single use, it expires{" "}
            <time dateTime={answer.expiresAt.toISOString()} data-testid="enroll-expires">
              {formatTime(answer.expiresAt)}
            </time>
            . Run these on the machine, in a folder of your choice:
          </p>
          <ol className="flex list-decimal flex-col gap-3 pl-5 text-sm">
            <li>
              <p className="mb-1.5">
                Fetch the agent, one file:{" "}
                <a href={answer.bundleUrl} data-testid="enroll-bundle-url">
                  {answer.bundleUrl}
                </a>
              </p>
              <CopyField
                label="Download command"
                value={`curl -fsSL -o boxd.mjs ${answer.bundleUrl}`}
              />
            </li>
            <li>
              <p className="mb-1.5">
                Run it, with the folder Berth may work in for <code>&lt;DIR&gt;</code>. It keeps its
                credential in <code>~/.config/berth-agent/</code>; started again later, it needs no
                code.
              </p>
              <CopyField label="Agent command" value={answer.command} testId="enroll-command" />
            </li>
          </ol>
          <p className="text-sm text-muted-foreground">
            The machine shows up below, online, once its agent has connected. Berth runs files, git
            and commands there as the user who started the agent, inside that folder only.
          </p>
          <div>
            <Button type="button" variant="outline" size="sm" onClick={() => enroll.reset()}>
              Done
            </Button>
          </div>
        </div>
      )}
    </Section>
  );
}
