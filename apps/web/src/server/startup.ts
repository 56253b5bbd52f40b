import { readWebEnv } from "../env.ts";

/** Stops the server with one message listing every bad variable. */
export function validateEnvOrExit(): void {
  try {
    readWebEnv();
  } catch (error) {
    process.stderr.write(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
