import { expect, test, type Page } from "@playwright/test";
import { demoAdmin } from "../demoAdmin.ts";
import { expectPageShown } from "../pageChecks.ts";

// One story in order: the admin's invitation link is what the invited person opens.
test.describe.configure({ mode: "serial" });

const admin = demoAdmin;
const invitee = {
  name: "Mia Member",
  email: "mia@example.test",
  password: "a long enough password",
};
let invitationLink = "";

async function signIn(page: Page, credentials: { email: string; password: string }) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(credentials.email);
  await page.getByLabel("Password").fill(credentials.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
}

test("a wrong password is refused with a readable error", async ({ page }, testInfo) => {
  await page.goto("/sign-in");
  await expectPageShown(page, testInfo, { name: "sign-in", heading: "Sign in to Berth" });
  await signIn(page, { email: admin.email, password: "not-the-password" });

  // Filtered by text: Next's route announcer is also an alert region.
  await expect(
    page.getByRole("alert").filter({ hasText: /invalid email or password/i }),
  ).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("before the page's scripts run, Enter in the sign-in form sends nothing", async ({
  browser,
}) => {
  // The page as a browser shows it before hydration: the form has no submit handler yet, and a
  // native submit would be a GET with the password in the address.
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await page.goto("/sign-in");
    await expect(page.getByRole("button", { name: "Sign in" })).toBeDisabled();
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill("typed before hydration");
    await page.getByLabel("Password").press("Enter");
    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByLabel("Password")).toHaveValue("typed before hydration");
  } finally {
    await context.close();
  }
});

test("the demo admin sees the admin controls and invites a member", async ({ page }, testInfo) => {
  await signIn(page, admin);

  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("banner").getByText(admin.email)).toBeVisible();
  await expect(page.getByRole("heading", { name: "Demo workspace", level: 1 })).toBeVisible();
  const members = page.getByRole("region", { name: "Members" });
  await expect(members.getByRole("cell", { name: `${admin.email} (you)` })).toBeVisible();
  const audit = page.getByRole("region", { name: "Audit log" });
  await expect(audit).toBeVisible();

  await members.getByLabel("Role for the invitation").selectOption("member");
  await members.getByRole("button", { name: "Invite member" }).click();
  const link = members.getByLabel("Invitation link");
  await expect(link).toHaveValue(/\/invite\/berth_inv_\S+$/);
  invitationLink = await link.inputValue();
  await expect(audit.getByRole("cell", { name: "invitation.create" })).toBeVisible();

  const sessions = page.getByRole("region", { name: "Sessions" });
  await sessions.getByLabel("Title").fill("First session");
  await sessions.getByRole("button", { name: "New session" }).click();
  await expect(sessions.getByRole("cell", { name: "First session" })).toBeVisible();

  const tokens = page.getByRole("region", { name: "API tokens" });
  await tokens.getByLabel("Name").fill("ci");
  await tokens.getByRole("button", { name: "Create token" }).click();
  await expect(tokens.getByLabel("New token")).toHaveValue(/^berth_tok_\S+$/);
  await expect(tokens.getByRole("button", { name: "Revoke ci" })).toBeVisible();
  await expect(audit.getByRole("cell", { name: "token.create" })).toBeVisible();
  await expectPageShown(page, testInfo, { name: "dashboard-admin", heading: "Demo workspace" });

  await signOut(page);
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("an invited person creates an account and joins as a member", async ({ page }, testInfo) => {
  await page.goto(invitationLink);
  await expectPageShown(page, testInfo, { name: "invitation", heading: "Join Demo workspace" });
  await page.getByLabel("Name").fill(invitee.name);
  await page.getByLabel("Email").fill(invitee.email);
  await page.getByLabel("Password").fill(invitee.password);
  await page.getByRole("button", { name: "Create account and join" }).click();

  await expect(page).toHaveURL(/\/\?workspace=[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "Demo workspace", level: 1 })).toBeVisible();
  const members = page.getByRole("region", { name: "Members" });
  // The list has loaded (and so has the role that decides the controls) before the absences count.
  await expect(members.getByRole("cell", { name: `${invitee.email} (you)` })).toBeVisible();
  await expect(members.getByRole("cell", { name: admin.email, exact: true })).toBeVisible();
  await expect(members.getByRole("button", { name: "Invite member" })).toHaveCount(0);
  await expect(members.getByRole("combobox")).toHaveCount(0);
  await expect(members.getByRole("button", { name: /remove/i })).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Audit log" })).toHaveCount(0);
  await expectPageShown(page, testInfo, { name: "dashboard-member", heading: "Demo workspace" });

  await signOut(page);
});
