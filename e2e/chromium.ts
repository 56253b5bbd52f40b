import type { LaunchOptions } from "@playwright/test";

/**
 * Debian's chromium, never a Playwright browser download, for the browser tests and the
 * dashboard benchmark. The flags keep it off the network (this machine's is closed) and let it
 * run as root.
 */
export const chromiumLaunchOptions: LaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
  ],
};
