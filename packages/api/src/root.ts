import type { RouterFixtures } from "./fixtures.ts";
import { adminFixtures, adminRouter } from "./router/admin.ts";
import { archivesFixtures, archivesRouter } from "./router/archives.ts";
import { machinesFixtures, machinesRouter } from "./router/machines.ts";
import { auditFixtures, auditRouter } from "./router/audit.ts";
import { eventsFixtures, eventsRouter } from "./router/events.ts";
import { execFixtures, execRouter } from "./router/exec.ts";
import { fsFixtures, fsRouter } from "./router/fs.ts";
import { gitFixtures, gitRouter } from "./router/git.ts";
import { terminalFixtures, terminalRouter } from "./router/terminal.ts";
import { invitationsFixtures, invitationsRouter } from "./router/invitations.ts";
import { leasesFixtures, leasesRouter } from "./router/leases.ts";
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
  machines: machinesRouter,
  recovery: recoveryRouter,
  admin: adminRouter,
  fs: fsRouter,
  exec: execRouter,
  git: gitRouter,
  terminal: terminalRouter,
  leases: leasesRouter,
  events: eventsRouter,
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
  machines: machinesFixtures,
  recovery: recoveryFixtures,
  admin: adminFixtures,
  fs: fsFixtures,
  exec: execFixtures,
  git: gitFixtures,
  terminal: terminalFixtures,
  leases: leasesFixtures,
  events: eventsFixtures,
};
