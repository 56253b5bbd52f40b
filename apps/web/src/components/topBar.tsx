import Link from "next/link";
import type { ReactNode } from "react";
import { BerthMark } from "./icons.tsx";
import { SignOutButton } from "./signOutButton.tsx";

/**
 * The signed-in pages' banner: the product name (home), what `children` adds (the workspace
 * switcher, a breadcrumb), then who is signed in and the way out.
 */
export function TopBar({
  home,
  email,
  children,
}: {
  home: string;
  email: string;
  children?: ReactNode;
}) {
  return (
    <header className="sticky top-0 z-30 border-b border-border bg-background/85 backdrop-blur supports-[backdrop-filter]:bg-background/70">
      <div className="mx-auto flex h-14 w-full max-w-7xl items-center gap-4 px-4 sm:px-6">
        <Link
          href={home}
          className="flex items-center gap-2 font-semibold tracking-tight text-foreground no-underline"
        >
          <span className="flex size-7 items-center justify-center rounded-md bg-primary text-primary-foreground">
            <BerthMark />
          </span>
          Berth
        </Link>
        <div className="flex min-w-0 flex-1 items-center gap-2">{children}</div>
        <span
          className="max-w-48 truncate text-sm text-muted-foreground sm:max-w-xs"
          data-testid="signed-in-email"
        >
          {email}
        </span>
        <SignOutButton />
      </div>
    </header>
  );
}
