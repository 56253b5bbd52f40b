import Link from "next/link";

/** Links to each of the person's workspaces; the current one is marked. */
export function WorkspaceSwitcher({
  workspaces,
  currentId,
}: {
  workspaces: readonly { id: string; name: string }[];
  currentId: string;
}) {
  return (
    <nav aria-label="Workspaces" className="switcher">
      {workspaces.map((workspace) => (
        <Link
          key={workspace.id}
          href={`/?workspace=${workspace.id}`}
          aria-current={workspace.id === currentId ? "page" : undefined}
        >
          {workspace.name}
        </Link>
      ))}
    </nav>
  );
}
