import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Locator } from "@playwright/test";
import { expectPageShown } from "../pageChecks.ts";
import { call, newSession, signIn } from "../signedIn.ts";

// Issue 40: the workspace's Machines page. An admin enrolls a machine from the page and runs
// exactly what it shows — the agent fetched from the bundle URL into a folder outside the
// checkout, started with the page's command — then watches it come online, renames it, rotates
// its credential and revokes it; the agent, refused, stops with exit code 4. A member sees the
// list and none of the actions.

// In order: the member's test looks at the machine the admin's test enrolled.
test.describe.configure({ mode: "serial" });
// The page's Copy button writes to the clipboard, which the test reads back.
test.use({ permissions: ["clipboard-read", "clipboard-write"] });

/** What the agent's user has on the machine: a folder for everything, outside the checkout. */
interface AgentMachine {
  readonly folder: string;
  process: ChildProcess | undefined;
  output: string;
}
let machine: AgentMachine | undefined;

test.afterEach(async () => {
  if (machine !== undefined) await test.info().attach("agent output", { body: machine.output });
  const agent = machine?.process;
  if (agent !== undefined && agent.exitCode === null && agent.signalCode === null) {
    const exited = new Promise((resolve) => agent.once("exit", resolve));
    agent.kill("SIGKILL");
    await exited;
  }
  if (machine !== undefined) await rm(machine.folder, { recursive: true, force: true });
  machine = undefined;
});

test("an admin enrolls a machine from the page, sees it online, manages it and revokes it", async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000);
  await signIn(page);
  await page
    .getByRole("navigation", { name: "Workspace pages" })
    .getByRole("link", { name: "Machines" })
    .click();
  await expect(page).toHaveURL(/\/machines\?workspace=[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "Machines", level: 1 })).toBeVisible();

  await page.getByRole("button", { name: "Enroll a machine" }).click();
  const command = page.getByTestId("enroll-command");
  await expect(command).toHaveValue(
    /^node boxd\.mjs agent --server http:\S+ --enroll [A-Z0-9-]+ --root <DIR>$/,
  );
  const shown = await command.inputValue();
  await expect(page.getByTestId("enroll-expires")).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  await page.getByRole("button", { name: "Copy agent command" }).click();
  await expect(page.getByText("Copied.")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
  const bundleUrl = (await page.getByTestId("enroll-bundle-url").getAttribute("href")) ?? "";

  machine = await prepareMachine(bundleUrl);
  const agent = startAgent(machine, shown);
  const exited = new Promise<number | null>((resolve) => agent.once("exit", resolve));

  const machines = page.getByRole("region", { name: "Enrolled machines" });
  // The agent names none, so Berth calls it "machine" (the run's database is fresh); from then
  // on the row is followed by its id, whatever its name cell shows.
  const named = machineRow(machines, "machine");
  await expect(named).toHaveCount(1, { timeout: 30_000 });
  const machineId = (await named.getAttribute("data-machine-id")) ?? "";
  const row = machines.locator(`[data-machine-id="${machineId}"]`);
  await expect(row.getByTestId("machine-state")).toHaveText("online", { timeout: 30_000 });
  await expect(row.getByRole("cell", { name: /^(just now|\d+ s ago)$/ })).toBeVisible();
  await expect(row.getByRole("cell", { name: `linux/${process.arch}` })).toBeVisible();
  await expect(machines.getByTestId("machines-online")).toHaveText(/^1 of \d+ online$/);
  await expectPageShown(page, testInfo, { name: "machines-admin", heading: "Machines" });

  await row.getByRole("button", { name: "Rename machine" }).click();
  await row.getByRole("textbox", { name: "New name for machine" }).fill("e2e-laptop");
  await row.getByRole("button", { name: "Rename", exact: true }).click();
  await expect(row.getByTestId("machine-name")).toHaveText("e2e-laptop");
  await expect(row.getByTestId("machine-state")).toHaveText("online");

  // Rotated: the agent is told at once and replaces the credential in its file.
  const credentialFile = join(
    machine.folder,
    "state",
    "berth-agent",
    `${new URL(bundleUrl).host}.json`,
  );
  const before = await readFile(credentialFile, "utf8");
  await row.getByRole("button", { name: "Rotate the credential of e2e-laptop" }).click();
  await expect(row.getByRole("status")).toHaveText(/Rotation sent/);
  await expect.poll(() => readFile(credentialFile, "utf8"), { timeout: 20_000 }).not.toBe(before);

  await row.getByRole("button", { name: "Revoke e2e-laptop" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Revoke e2e-laptop?" });
  await confirm.getByRole("button", { name: "Revoke" }).click();
  await expect(confirm).toBeHidden();
  await expect(row.getByTestId("machine-state")).toHaveText("revoked");
  await expect(row.getByRole("button")).toHaveCount(0);
  // Its credential refused, the agent stops on its own with the code that says so.
  expect(await exited, agentSaid()).toBe(4);
});

test("an admin swaps a session onto an enrolled machine from its page and back: writes land there, a terminal on the group box ends", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page);
  const { workspaceId, sessionId } = await newSession(page, "Swapped session");
  const scope = { workspaceId, sessionId };
  const enrolled = (await call(page, {
    path: "machines.enroll",
    input: { workspaceId },
    kind: "mutation",
  })) as { command: string; bundleUrl: string };
  machine = await prepareMachine(enrolled.bundleUrl);
  startAgent(machine, enrolled.command.replace("agent ", "agent --name e2e-desk "));

  await page.goto(`/sessions/${sessionId}?workspace=${workspaceId}`);
  await expect(page.getByRole("heading", { name: "Swapped session", level: 1 })).toBeVisible();
  // A terminal on the group box (it wakes the box), open while the session moves.
  const workspace = page.getByRole("region", { name: "Workspace" });
  await workspace.getByRole("tab", { name: "Terminal", exact: true }).click();
  await workspace.getByRole("button", { name: "New terminal" }).click();
  const shell = workspace.getByRole("tabpanel", { name: "Shell 1" });
  await expect(shell.getByTestId("terminal-state")).toHaveText("live", { timeout: 60_000 });

  const machines = page.getByRole("region", { name: "Machines" });
  const desk = machines.locator("tr", { has: page.getByRole("rowheader", { name: "e2e-desk" }) });
  await expect(desk.getByTestId("machine-state")).toHaveText("online", { timeout: 30_000 });
  await desk.getByRole("button", { name: "Swap the session to e2e-desk" }).click();
  const confirm = page.getByRole("alertdialog", {
    name: "Move this session to the machine e2e-desk?",
  });
  await confirm.getByRole("button", { name: "Swap", exact: true }).click();
  await expect(confirm).toBeHidden();
  await expect(desk.getByTestId("machine-active")).toHaveText("yes");
  await expect(shell.getByTestId("terminal-state")).toHaveText(/^session moved to machine /);

  // A write through the API now lands in the machine's folder, and says so.
  const written = (await call(page, {
    path: "fs.write",
    input: { ...scope, path: "from-the-page.txt", content: "on the desk" },
    kind: "mutation",
  })) as { routedTo: { kind: string } };
  expect(written.routedTo.kind).toBe("machine");
  const folder = machine.folder;
  expect(await readFile(join(folder, "work", "from-the-page.txt"), "utf8")).toBe("on the desk");

  const group = machines.locator("tr", {
    has: page.getByRole("rowheader", { name: "Swapped session (group box)" }),
  });
  await group.getByRole("button", { name: "Swap the session back to its group box" }).click();
  await page
    .getByRole("alertdialog", { name: "Move this session to its group box?" })
    .getByRole("button", { name: "Swap", exact: true })
    .click();
  await expect(group.getByTestId("machine-active")).toHaveText("yes", { timeout: 60_000 });
  await expect(desk.getByTestId("machine-active")).toHaveText("no");
  await expect(desk.getByRole("button", { name: "Swap the session to e2e-desk" })).toBeVisible();

  // Revoked, so the specs after this one see no machine of this test beside their sessions.
  const desks = (await call(page, {
    path: "machines.listWorkspace",
    input: { workspaceId },
    kind: "query",
  })) as { id: string; name: string }[];
  const deskId = desks.find((row) => row.name === "e2e-desk")?.id ?? "";
  await call(page, {
    path: "machines.revoke",
    input: { workspaceId, machineId: deskId },
    kind: "mutation",
  });
});

test("a member sees the workspace's machines but none of the admin's actions", async ({
  page,
  browser,
}) => {
  await signIn(page);
  const me = (await call(page, { path: "me.get", input: undefined, kind: "query" })) as {
    workspaces: { id: string }[];
  };
  const workspaceId = me.workspaces[0]?.id ?? "";
  const invitation = (await call(page, {
    path: "invitations.create",
    input: { workspaceId, role: "member" },
    kind: "mutation",
  })) as { url: string };

  const context = await browser.newContext();
  try {
    const member = await context.newPage();
    await member.goto(invitation.url);
    await member.getByLabel("Name").fill("Max Machines");
    await member.getByLabel("Email").fill("max.machines@example.test");
    await member.getByLabel("Password").fill("a long enough password");
    await member.getByRole("button", { name: "Create account and join" }).click();
    await expect(member).toHaveURL(/\/\?workspace=[0-9a-f-]{36}$/);

    await member.goto(`/machines?workspace=${workspaceId}`);
    const machines = member.getByRole("region", { name: "Enrolled machines" });
    // The list has loaded before the absences count.
    const row = machineRow(machines, "e2e-laptop");
    await expect(row.getByTestId("machine-state")).toHaveText("revoked");
    await expect(member.getByRole("region", { name: "Enroll a machine" })).toHaveCount(0);
    await expect(machines.getByRole("button")).toHaveCount(0);
  } finally {
    await context.close();
  }
});

/** The table row of the machine named `name` exactly. */
function machineRow(machines: Locator, name: string): Locator {
  return machines
    .getByTestId("machine-row")
    .filter({ has: machines.page().getByTestId("machine-name").getByText(name, { exact: true }) });
}

/** A folder of its own under the system's temp folder, with the agent Berth serves in `bin/`. */
async function prepareMachine(bundleUrl: string): Promise<AgentMachine> {
  const folder = await mkdtemp(join(tmpdir(), "berth-e2e-machine-"));
  const prepared: AgentMachine = { folder, process: undefined, output: "" };
  machine = prepared;
  const bundle = await fetch(bundleUrl);
  expect(bundle.status).toBe(200);
  await mkdir(join(folder, "bin"));
  await mkdir(join(folder, "work"));
  await writeFile(join(folder, "bin", "boxd.mjs"), Buffer.from(await bundle.arrayBuffer()));
  return prepared;
}

/**
 * Runs the page's command word for word from the agent's folder, but for `node` (this Node)
 * and `<DIR>` (the machine's work folder); its credential goes to the machine's own state
 * folder (XDG_CONFIG_HOME), never the tester's home.
 */
function startAgent(target: AgentMachine, command: string): ChildProcess {
  const [node, ...args] = command.split(/\s+/);
  expect(node).toBe("node");
  const agent = spawn(
    process.execPath,
    args.map((arg) => (arg === "<DIR>" ? join(target.folder, "work") : arg)),
    {
      cwd: join(target.folder, "bin"),
      env: { ...process.env, XDG_CONFIG_HOME: join(target.folder, "state") },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  target.process = agent;
  const keep = (chunk: Buffer) => (target.output += chunk.toString());
  agent.stdout.on("data", keep);
  agent.stderr.on("data", keep);
  return agent;
}

/** A failed expectation's message: what the agent printed so far. */
function agentSaid(): string {
  return `the agent said:\n${machine?.output ?? ""}`;
}
