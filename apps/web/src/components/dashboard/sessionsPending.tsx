"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { LoadingRows } from "../loadingRows.tsx";

/**
 * The sessions of a workspace the server did not render this page for (the person just joined
 * or created it): ask the server to render the page again, which brings them.
 */
export function SessionsPending({ workspaceId }: { workspaceId: string }) {
  const router = useRouter();
  useEffect(() => {
    router.refresh();
  }, [router, workspaceId]);
  return <LoadingRows label="Loading sessions…" columns={6} />;
}
