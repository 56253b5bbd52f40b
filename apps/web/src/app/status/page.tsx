import Link from "next/link";
import { PageMain } from "../../components/pageMain.tsx";
import { StatusPanel } from "../../components/statusPanel.tsx";

// Public: it shows what is running, not anyone's data.
export default function StatusPage() {
  return (
    <PageMain className="max-w-3xl">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Berth</h1>
        <p className="text-muted-foreground">
          A control plane for AI-agent sandboxes. This page shows what is running.
        </p>
      </div>
      <StatusPanel />
      <p className="text-sm">
        <Link href="/" className="text-primary">
          Dashboard
        </Link>
      </p>
    </PageMain>
  );
}
