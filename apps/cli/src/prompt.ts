import { CliError, usageError } from "./errors.ts";

/** All of stdin, as bytes. */
export async function readStdinBytes(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A secret piped on stdin (`--password-stdin`), without its one trailing newline. */
export async function readSecretFromStdin(what: string): Promise<string> {
  const text = (await readStdinBytes()).toString("utf8").replace(/\r?\n$/, "");
  if (text === "") throw usageError(`No ${what} on stdin.`, `Pipe the ${what} in, e.g. \`… |\`.`);
  return text;
}

/** Asks on the terminal; with `hidden`, nothing typed is echoed (passwords). */
export async function prompt(question: string, options: { hidden: boolean }): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY)
    throw usageError(
      "No terminal to ask on.",
      "Pass --email, and the password with --password-stdin (or a token with --token).",
    );
  // Raw (no echo) before the question shows: what is typed the moment it appears is not echoed.
  input.setRawMode(true);
  process.stderr.write(question);
  input.setEncoding("utf8");
  input.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = "";
      const onData = (chunk: string) => {
        for (const char of chunk) {
          if (char === "\r" || char === "\n" || char === "\u0004") {
            input.off("data", onData);
            resolve(value);
            return;
          }
          if (char === "\u0003") {
            input.off("data", onData);
            reject(
              new CliError({
                reason: "usage",
                code: "cancelled",
                message: "Cancelled.",
                hint: "Nothing was changed.",
              }),
            );
            return;
          }
          if (char === "\u007f" || char === "\b") {
            if (value !== "" && !options.hidden) process.stderr.write("\b \b");
            value = value.slice(0, -1);
            continue;
          }
          value += char;
          if (!options.hidden) process.stderr.write(char);
        }
      };
      input.on("data", onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
    process.stderr.write("\n");
  }
}
