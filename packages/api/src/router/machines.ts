import { AGENT_ROUTES } from "@berth/box-protocol";
import {
  createEnrollmentCode,
  readEnrolledMachines,
  readMachines,
  renameMachine,
  requestCredentialRotation,
  revokeMachine,
} from "@berth/sandbox";
import { idSchema } from "@berth/validators";
import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { writeAudit } from "../audit.ts";
import type { RouterFixtures } from "../fixtures.ts";
import { machineNameSchema } from "../machineName.ts";
import { adminProcedure, memberProcedure } from "../trpc.ts";

const machineInput = z.object({ machineId: idSchema });

export const machinesRouter = {
  /**
   * The machines a session can run on (with `sessionId`: its group box, then the workspace's
   * enrolled machines that are not revoked), or the group box of every session of the workspace:
   * state, generations, `archiveComplete`, holders, and `confinement` (the running box's
   * isolation, network and limits, as its lease recorded them). One query, whatever the count.
   */
  list: memberProcedure
    .input(z.object({ sessionId: idSchema.optional() }))
    .query(async ({ ctx, input }) => {
      const machines = await readMachines(
        ctx.db,
        {
          workspaceId: ctx.workspaceId,
          ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
        },
        await ctx.clock.now(),
      );
      if (input.sessionId !== undefined && machines.length === 0)
        throw new TRPCError({ code: "NOT_FOUND", message: "No such session in this workspace." });
      return machines;
    }),

  /**
   * A one-time code that enrolls one machine into this workspace, good for `ttlMinutes` (default
   * 10). The code is in this answer only (Berth keeps its hash), with the command to run on the
   * machine: the agent is the single file Berth serves at `bundleUrl`.
   */
  enroll: adminProcedure
    .input(z.object({ ttlMinutes: z.number().int().min(1).max(60).optional() }))
    .mutation(async ({ ctx, input }) => {
      const now = await ctx.clock.now();
      const created = await ctx.db.$transaction(async (tx) => {
        const code = await createEnrollmentCode(tx, {
          workspaceId: ctx.workspaceId,
          createdBy: ctx.actor,
          now,
          ...(input.ttlMinutes === undefined ? {} : { ttlMs: input.ttlMinutes * 60_000 }),
        });
        await writeAudit(tx, {
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: "machine.enrollment_code.create",
          target: { kind: "machine_enrollment_code", id: code.id },
          after: { expiresAt: code.expiresAt.toISOString() },
          at: now,
        });
        return code;
      });
      return {
        code: created.code,
        expiresAt: created.expiresAt,
        bundleUrl: `${ctx.publicUrl}${AGENT_ROUTES.bundle}`,
        command: `node boxd.mjs agent --server ${ctx.publicUrl} --enroll ${created.code} --root <DIR>`,
      };
    }),

  /**
   * Every machine enrolled in the workspace, revoked ones included: name, os/arch/display, boxd
   * version, and `online` (connected, its agent answered within MACHINE_ONLINE_WINDOW_MS),
   * `offline` or `revoked`.
   */
  listWorkspace: memberProcedure.query(async ({ ctx }) =>
    readEnrolledMachines(ctx.db, { workspaceId: ctx.workspaceId }, await ctx.clock.now()),
  ),

  /** A new name, unique in the workspace (CONFLICT when another machine has it). */
  rename: adminProcedure
    .input(machineInput.extend({ name: machineNameSchema }))
    .mutation(async ({ ctx, input }) => {
      const now = await ctx.clock.now();
      return await ctx.db.$transaction(async (tx) => {
        const ref = { workspaceId: ctx.workspaceId, machineId: input.machineId };
        const renamed = await renameMachine(tx, { ...ref, name: input.name });
        switch (renamed.outcome) {
          case "renamed":
            await writeAudit(tx, {
              workspaceId: ctx.workspaceId,
              actor: ctx.actor,
              action: "machine.rename",
              target: { kind: "machine", id: input.machineId },
              before: { name: renamed.before },
              after: { name: renamed.name },
              at: now,
            });
            return { machineId: input.machineId, name: renamed.name };
          case "unchanged":
            return { machineId: input.machineId, name: renamed.name };
          case "name_taken":
            throw new TRPCError({
              code: "CONFLICT",
              message: `Another machine of this workspace is already called "${input.name}".`,
            });
          case "lost_race":
            throw new TRPCError({
              code: "CONFLICT",
              message: "The machine was renamed by someone else meanwhile; look and try again.",
            });
          case "not_found":
            throw noSuchMachine();
          default:
            return assertNever(renamed);
        }
      });
    }),

  /**
   * Asks the machine's agent to replace its credential: told now when its channel is held by
   * this process (`delivery: "sent"`), else at its next connect or its holder's next heartbeat.
   * The old credential works until the agent connects with the new one, then never again.
   */
  rotateCredential: adminProcedure.input(machineInput).mutation(async ({ ctx, input }) => {
    const now = await ctx.clock.now();
    const requested = await ctx.db.$transaction(async (tx) => {
      const ref = { workspaceId: ctx.workspaceId, machineId: input.machineId };
      const outcome = await requestCredentialRotation(tx, { ...ref, now });
      if (outcome.outcome === "requested")
        await writeAudit(tx, {
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: "machine.credential.rotation_request",
          target: { kind: "machine", id: input.machineId },
          at: now,
        });
      return outcome;
    });
    switch (requested.outcome) {
      case "requested":
      case "already_requested": {
        const sent = ctx.agentChannels.requestRotation(input.machineId);
        return {
          machineId: input.machineId,
          requestedAt: requested.requestedAt,
          delivery: sent ? ("sent" as const) : ("next_connect" as const),
        };
      }
      case "revoked":
        throw new TRPCError({
          code: "PRECONDITION_FAILED",
          message: "The machine is revoked: it has no credential to rotate. Enroll it again.",
        });
      case "not_found":
        throw noSuchMachine();
      default:
        return assertNever(requested);
    }
  }),

  /**
   * Shuts a machine out for good: none of its credentials is accepted again and its channel is
   * dropped. Revoking a revoked machine answers as the first revoke did and writes nothing.
   */
  revoke: adminProcedure.input(machineInput).mutation(async ({ ctx, input }) => {
    const now = await ctx.clock.now();
    const answer = await ctx.db.$transaction(async (tx) => {
      const ref = { workspaceId: ctx.workspaceId, machineId: input.machineId };
      const revoked = await revokeMachine(tx, { ...ref, now });
      switch (revoked.outcome) {
        case "revoked":
          await writeAudit(tx, {
            workspaceId: ctx.workspaceId,
            actor: ctx.actor,
            action: "machine.revoke",
            target: { kind: "machine", id: input.machineId },
            after: { credentialsRevoked: revoked.credentials },
            at: now,
          });
          return { machineId: input.machineId, revokedAt: revoked.revokedAt };
        case "already_revoked":
          return { machineId: input.machineId, revokedAt: revoked.revokedAt };
        case "not_found":
          throw noSuchMachine();
        default:
          return assertNever(revoked);
      }
    });
    // After commit: the channel held here ends now; one held by another replica at its next
    // heartbeat (its credential no longer matches a live row).
    await ctx.agentChannels.endRevoked(input.machineId);
    return answer;
  }),
} satisfies TRPCRouterRecord;

/** Also what another workspace's machine answers: never a hint that it exists. */
function noSuchMachine(): TRPCError {
  return new TRPCError({ code: "NOT_FOUND", message: "No such machine in this workspace." });
}

function assertNever(value: never): never {
  throw new Error(`unexpected outcome ${JSON.stringify(value)}`);
}

// In definition order: rename and rotateCredential run before revoke in the matrix's positive pass.
export const machinesFixtures: RouterFixtures<typeof machinesRouter> = {
  list: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, sessionId: w.sessionId }),
  },
  enroll: { access: "admin", scope: "tenant", input: (w) => ({ workspaceId: w.workspaceId }) },
  listWorkspace: {
    access: "member",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId }),
  },
  rename: {
    access: "admin",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, machineId: w.machineId, name: "renamed" }),
  },
  rotateCredential: {
    access: "admin",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, machineId: w.machineId }),
  },
  revoke: {
    access: "admin",
    scope: "tenant",
    input: (w) => ({ workspaceId: w.workspaceId, machineId: w.machineId }),
  },
};
