import type { z } from "zod";

/**
 * One message listing every problem with a process's environment, so a person fixes them all
 * at once instead of one per restart.
 */
export function formatEnvProblems(processName: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const name = issue.path.join(".") || "(environment)";
    return `  - ${name}: ${issue.message}`;
  });
  return `${processName}: invalid environment (${lines.length} problem${lines.length === 1 ? "" : "s"}):\n${lines.join("\n")}\nSet these variables and start again.\n`;
}
