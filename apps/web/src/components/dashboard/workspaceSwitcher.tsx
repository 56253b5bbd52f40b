import Link from "next/link";

/**
 * Links to each of the person's workspaces, as tabs in the top bar; the current one is marked.
 * Each goes to the same page (`path`, the dashboard by default) in the other workspace.
 */
export function WorkspaceSwitcher({
  workspaces,
  currentId,
  path = "/",
}: {
  workspaces: readonly { id: string; name: string }[];
  currentId: string;
  path?: string;
}) {
  return (
    <nav
      aria-label="Workspaces"
      className="flex min-w-0 items-center gap-1 overflow-x-auto rounded-lg bg-muted p-1"
    >
      {workspaces.map((workspace) => (
        <Link
          key={workspace.id}
          href={`${path}?workspace=${workspace.id}`}
          aria-current={workspace.id === currentId ? "page" : undefined}
          className="rounded-md px-2.5 py-1 text-sm whitespace-nowrap text-muted-foreground no-underline transition-colors hover:text-foreground aria-[current=page]:bg-card aria-[current=page]:font-medium aria-[current=page]:text-foreground aria-[current=page]:shadow-xs"
        >
          {workspace.name}
        </Link>
      ))}
    </nav>
  );
}
