import type { OperationRequest, OperationResponse } from "@berth/box-protocol";
import { MAX_GIT_TEXT_BYTES } from "../limits.ts";
import { checkBranchName, checkRef, gitPaths } from "./refNames.ts";
import { runGit, type GitContext } from "./runGit.ts";
import { parsePorcelainV2 } from "./statusParser.ts";

export async function gitStatus(context: GitContext): Promise<OperationResponse<"gitStatus">> {
  const args = ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"];
  return parsePorcelainV2((await runGit(context, args)).stdout);
}

export async function gitDiff(
  context: GitContext,
  request: OperationRequest<"gitDiff">,
): Promise<OperationResponse<"gitDiff">> {
  const args = ["diff", "--no-color", "--no-ext-diff"];
  if (request.staged) args.push("--cached");
  args.push("--end-of-options");
  if (request.ref !== undefined) args.push(checkRef(request.ref));
  args.push("--", ...gitPaths(request.paths));
  const run = await runGit(context, args, { maxBytes: MAX_GIT_TEXT_BYTES });
  return { text: run.stdout, truncated: run.truncated };
}

const LOG_FORMAT = "%x1e%H%x00%P%x00%an%x00%ae%x00%aI%x00%s";

export async function gitLog(
  context: GitContext,
  request: OperationRequest<"gitLog">,
): Promise<OperationResponse<"gitLog">> {
  if (request.ref === undefined && !(await hasCommits(context))) return { commits: [] };
  const args = ["log", `--format=${LOG_FORMAT}`, `--max-count=${request.maxCount}`];
  args.push("--end-of-options");
  if (request.ref !== undefined) args.push(checkRef(request.ref));
  args.push("--", ...gitPaths(request.paths));
  const { stdout } = await runGit(context, args);
  const commits = stdout
    .split("\x1e")
    .slice(1)
    .map((record) => {
      const [
        oid = "",
        parents = "",
        authorName = "",
        authorEmail = "",
        authoredAt = "",
        subject = "",
      ] = record.replace(/\n+$/, "").split("\0");
      return {
        oid,
        parents: parents === "" ? [] : parents.split(" "),
        authorName,
        authorEmail,
        authoredAt,
        subject,
      };
    });
  return { commits };
}

export async function gitShow(
  context: GitContext,
  request: OperationRequest<"gitShow">,
): Promise<OperationResponse<"gitShow">> {
  const args = ["show", "--no-color", "--no-ext-diff", "--end-of-options", checkRef(request.ref)];
  args.push("--", ...gitPaths(request.paths));
  const run = await runGit(context, args, { maxBytes: MAX_GIT_TEXT_BYTES });
  return { text: run.stdout, truncated: run.truncated };
}

export async function gitBranches(context: GitContext): Promise<OperationResponse<"gitBranches">> {
  const format = "--format=%(refname:short)%00%(objectname)%00%(HEAD)";
  const { stdout } = await runGit(context, ["for-each-ref", format, "refs/heads/"]);
  const branches = stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [name = "", oid = "", head = ""] = line.split("\0");
      return { name, oid, current: head === "*" };
    });
  return { current: await currentBranch(context), branches };
}

export async function gitCheckout(
  context: GitContext,
  request: OperationRequest<"gitCheckout">,
): Promise<OperationResponse<"gitCheckout">> {
  const branch = await checkBranchName(context, request.branch);
  // The trailing `--` makes git read the name as a branch, never as a file to restore.
  const args = request.create ? ["checkout", "-b", branch, "--"] : ["checkout", branch, "--"];
  await runGit(context, args);
  return { branch };
}

export async function gitAdd(
  context: GitContext,
  request: OperationRequest<"gitAdd">,
): Promise<OperationResponse<"gitAdd">> {
  await runGit(context, ["add", "--", ...gitPaths(request.paths)]);
  return { ok: true };
}

export async function gitCommit(
  context: GitContext,
  request: OperationRequest<"gitCommit">,
): Promise<OperationResponse<"gitCommit">> {
  // An identity only when git has none configured, so a box's own config wins.
  const identity = (await hasIdentity(context))
    ? []
    : ["-c", "user.name=Berth", "-c", "user.email=boxd@berth.invalid"];
  const args = [...identity, "commit", "--no-gpg-sign", "-m", request.message];
  if (request.allowEmpty) args.push("--allow-empty");
  if (request.author !== undefined) {
    args.push(`--author=${request.author.name} <${request.author.email}>`);
  }
  await runGit(context, args);
  const { stdout } = await runGit(context, ["rev-parse", "--verify", "HEAD"]);
  return { oid: stdout.trim() };
}

async function hasCommits(context: GitContext): Promise<boolean> {
  return succeeds(runGit(context, ["rev-parse", "--verify", "--quiet", "HEAD"]));
}

async function hasIdentity(context: GitContext): Promise<boolean> {
  return succeeds(runGit(context, ["config", "--get", "user.email"]));
}

async function currentBranch(context: GitContext): Promise<string | null> {
  try {
    return (await runGit(context, ["symbolic-ref", "--short", "-q", "HEAD"])).stdout.trim();
  } catch {
    return null; // detached HEAD
  }
}

async function succeeds(run: Promise<unknown>): Promise<boolean> {
  try {
    await run;
    return true;
  } catch {
    return false;
  }
}
