import type { LaunchOptions } from "@playwright/test";

/**
 * Debian's chromium, never a Playwright browser download, for the browser tests and the
 * dashboard benchmark. The flags keep it off the network (this machine's is closed) and let it
 * run as root. Headless Chromium also builds its address bar's popup as a WebUI page for every
 * new tab, in a renderer of its own that keeps a core busy through each page load (seen in a
 * trace of the dashboard benchmark); nothing headless ever shows it, so those three features
 * are off.
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
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup",
  ],
};
