import { hostname } from "node:os";
import { createBerthClient } from "@berth/client";
import type { Command } from "commander";
import {
  credentialsPath,
  readCredentials,
  removeCredentials,
  writeCredentials,
} from "../config.ts";
import { tokenWorkspace, type CliContext } from "../context.ts";
import { usageError } from "../errors.ts";
import { prompt, readSecretFromStdin } from "../prompt.ts";
import { loginWithPassword, type ChosenWorkspace } from "../signIn.ts";

interface LoginOptions {
  readonly url?: string;
  readonly origin?: string;
  readonly email?: string;
  readonly passwordStdin?: boolean;
  readonly workspace?: string;
  readonly token?: string;
  readonly tokenStdin?: boolean;
}

interface LoggedIn {
  readonly url: string;
  readonly token: string;
  readonly email: string;
  readonly workspace: ChosenWorkspace;
}

export function registerAuth(program: Command, cli: CliContext): void {
  program
    .command("login")
    .description(
      "Sign in and keep an API token (credentials.json, mode 0600, in $BERTH_CONFIG_DIR, $XDG_CONFIG_HOME/berth or ~/.config/berth)",
    )
    .option("--url <url>", "where Berth is served (default: BERTH_URL, else the stored URL)")
    .option("--email <email>", "your account's email (asked for when omitted)")
    .option("--password-stdin", "read the password from stdin instead of asking")
    .option("--workspace <id>", "the workspace (id or slug); default: your only one")
    .option("--token <token>", "store an existing API token instead of signing in")
    .option("--token-stdin", "read an existing API token from stdin")
    .option("--origin <url>", "the dashboard's address, when it differs from --url")
    .addHelpText(
      "after",
      "\nSigning in makes a token with your role in the workspace, named after this machine.\nBERTH_URL, BERTH_TOKEN and BERTH_WORKSPACE override what is stored.",
    )
    .action(async (options: LoginOptions, command: Command) => {
      const out = cli.output(command);
      const url =
        options.url ??
        cli.env.url ??
        (await readCredentials(cli.env.configDir).catch(() => undefined))?.url;
      if (url === undefined)
        throw usageError(
          "Where is Berth?",
          "Pass --url, e.g. `berth login --url http://127.0.0.1:3000`.",
        );
      cli.errorScope.url = url;
      const loggedIn =
        options.token !== undefined || options.tokenStdin === true
          ? await withToken(url, options)
          : await withPassword(url, options);
      const file = await writeCredentials(cli.env.configDir, {
        url,
        token: loggedIn.token,
        workspaceId: loggedIn.workspace.id,
      });
      if (cli.env.token !== undefined)
        out.note("Note: BERTH_TOKEN is set and overrides the stored token.");
      const { workspace } = loggedIn;
      out.result(
        { url, email: loggedIn.email, workspaceId: workspace.id, workspace, credentialsFile: file },
        () =>
          `Signed in to ${url} as ${loggedIn.email} in ${workspace.slug} (${workspace.role}); credentials in ${file}.`,
      );
    });

  program
    .command("logout")
    .description("Forget the stored credentials")
    .addHelpText(
      "after",
      "\nThe token itself stays valid until it expires; revoke it in the dashboard under API tokens.",
    )
    .action(async (_options: unknown, command: Command) => {
      const removed = await removeCredentials(cli.env.configDir);
      const file = credentialsPath(cli.env.configDir);
      cli
        .output(command)
        .result({ removed, credentialsFile: file }, () =>
          removed ? `Signed out: removed ${file}.` : `Not signed in (no ${file}).`,
        );
    });
}

async function withToken(url: string, options: LoginOptions): Promise<LoggedIn> {
  if (options.passwordStdin === true)
    throw usageError("Pass a token or a password, not both.", "Drop --password-stdin.");
  const token = options.token ?? (await readSecretFromStdin("token"));
  const { workspace, user } = await tokenWorkspace(
    createBerthClient({ url, token }),
    "Make a new token in the dashboard (API tokens), or sign in with --email.",
  );
  if (
    options.workspace !== undefined &&
    ![workspace.id, workspace.slug].includes(options.workspace)
  )
    throw usageError(
      `The token acts in ${workspace.slug} (${workspace.id}), not ${options.workspace}.`,
      "Drop --workspace, or use a token of that workspace.",
    );
  return { url, token, email: user.email, workspace };
}

async function withPassword(url: string, options: LoginOptions): Promise<LoggedIn> {
  const email = options.email ?? (await prompt("Email: ", { hidden: false }));
  const password =
    options.passwordStdin === true
      ? await readSecretFromStdin("password")
      : await prompt("Password: ", { hidden: true });
  const login = await loginWithPassword({
    url,
    origin: new URL(options.origin ?? url).origin,
    email,
    password,
    workspace: options.workspace,
    tokenName: `berth CLI on ${hostname()}`.slice(0, 100),
  });
  return { url, token: login.token, email: login.email, workspace: login.workspace };
}
