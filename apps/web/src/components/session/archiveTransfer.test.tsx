import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ArchiveTransfer, type ArchiveTransferView } from "./archiveTransfer.tsx";

const render = (transfer: ArchiveTransferView) =>
  renderToStaticMarkup(<ArchiveTransfer transfer={transfer} />);
const MiB = 1024 * 1024;

describe("an archive transfer's bar", () => {
  it("shows a capture under way with its bytes", () => {
    const html = render({
      operation: "capture",
      phase: "capturing",
      bytesDone: 45 * MiB,
      bytesTotal: 150 * MiB,
    });
    expect(html).toContain("Capturing the workspace");
    expect(html).toContain("45 MiB of 150 MiB");
    expect(html).toContain('aria-valuenow="30"');
    expect(html).not.toContain("bg-destructive");
  });

  it("shows a failed capture stopped where it broke, and what that left", () => {
    const html = render({
      operation: "capture",
      phase: "failed",
      bytesDone: 45 * MiB,
      bytesTotal: 150 * MiB,
    });
    expect(html).toContain('data-phase="failed"');
    expect(html).toContain("Capture failed");
    expect(html).toContain("at 45 MiB of 150 MiB");
    expect(html).toContain('aria-valuenow="30"');
    expect(html).toContain("bg-destructive");
    expect(html).toContain("No archive was made");
    expect(html).not.toContain("Capturing");
  });

  it("shows a failed restore as a restore's failure", () => {
    const html = render({ operation: "restore", phase: "failed", bytesDone: 0, bytesTotal: null });
    expect(html).toContain("Restore failed");
    expect(html).toContain('aria-valuenow="0"');
  });
});
