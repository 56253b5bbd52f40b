import Link from "next/link";
import { StatusPanel } from "../../components/statusPanel.tsx";

// Public: it shows what is running, not anyone's data.
export default function StatusPage() {
  return (
    <main>
      <h1>Berth</h1>
      <p>A control plane for AI-agent sandboxes. This page shows what is running.</p>
      <StatusPanel />
      <p>
        <Link href="/">Dashboard</Link>
      </p>
    </main>
  );
}
