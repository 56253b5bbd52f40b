import type { RouterFixtures } from "./fixtures.ts";
import { archivesFixtures, archivesRouter } from "./router/archives.ts";
import { auditFixtures, auditRouter } from "./router/audit.ts";
import { invitationsFixtures, invitationsRouter } from "./router/invitations.ts";
import { meFixtures, meRouter } from "./router/me.ts";
import { recoveryFixtures, recoveryRouter } from "./router/recovery.ts";
import { membersFixtures, membersRouter } from "./router/members.ts";
import { sessionsFixtures, sessionsRouter } from "./router/sessions.ts";
import { statusFixtures, statusRouter } from "./router/status.ts";
import { tokensFixtures, tokensRouter } from "./router/tokens.ts";
import { workspacesFixtures, workspacesRouter } from "./router/workspaces.ts";
import { createTRPCRouter } from "./trpc.ts";

const routers = {
  status: statusRouter,
  me: meRouter,
  workspaces: workspacesRouter,
  members: membersRouter,
  invitations: invitationsRouter,
  tokens: tokensRouter,
  audit: auditRouter,
  sessions: sessionsRouter,
  archives: archivesRouter,
  recovery: recoveryRouter,
};

export const appRouter = createTRPCRouter(routers);

export type AppRouter = typeof appRouter;

/** Every router's fixtures, keyed like the router: the matrices' input. */
export const appRouterFixtures: {
  [K in keyof typeof routers]: RouterFixtures<(typeof routers)[K]>;
} = {
  status: statusFixtures,
  me: meFixtures,
  workspaces: workspacesFixtures,
  members: membersFixtures,
  invitations: invitationsFixtures,
  tokens: tokensFixtures,
  audit: auditFixtures,
  sessions: sessionsFixtures,
  archives: archivesFixtures,
  recovery: recoveryFixtures,
};
