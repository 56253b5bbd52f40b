import { StatusPanel } from "../components/statusPanel.tsx";

export default function StatusPage() {
  return (
    <main>
      <h1>Berth</h1>
      <p>A control plane for AI-agent sandboxes. This page shows what is running.</p>
      <StatusPanel />
    </main>
  );
}
