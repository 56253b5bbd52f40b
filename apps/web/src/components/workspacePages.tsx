import Link from "next/link";

/** The pages of one workspace, each a path that takes `?workspace=`. */
const pages = [
  { key: "overview", label: "Overview", path: "/" },
  { key: "machines", label: "Machines", path: "/machines" },
] as const;

export type WorkspacePage = (typeof pages)[number]["key"];

/** Links between a workspace's pages, under its heading; the page shown is marked. */
export function WorkspacePages({
  workspaceId,
  current,
}: {
  workspaceId: string;
  current: WorkspacePage;
}) {
  return (
    <nav aria-label="Workspace pages" className="flex gap-4 border-b border-border text-sm">
      {pages.map((page) => (
        <Link
          key={page.key}
          href={`${page.path}?workspace=${workspaceId}`}
          aria-current={page.key === current ? "page" : undefined}
          className="-mb-px border-b-2 border-transparent px-1 pb-2 text-muted-foreground no-underline transition-colors hover:text-foreground aria-[current=page]:border-primary aria-[current=page]:font-medium aria-[current=page]:text-foreground"
        >
          {page.label}
        </Link>
      ))}
    </nav>
  );
}
