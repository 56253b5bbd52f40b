"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "../../trpc/react.tsx";

/** Within the viewer TTL (90 s by default) with room for one missed beat. */
const HEARTBEAT_MS = 45_000;

/**
 * While the page is open and the box is live, the page is a viewer of the session's lease, so
 * the box stays warm while someone watches it. A cold box is never woken by a page being open:
 * the holder is taken only once the box is warm or draining. A heartbeat that finds its epoch
 * gone (the box was replaced) drops the holder; the next live state takes a new one.
 */
export function useViewerHolder(input: {
  workspaceId: string;
  sessionId: string;
  boxLive: boolean;
}): number | null {
  const trpc = useTRPC();
  const scope = { workspaceId: input.workspaceId, sessionId: input.sessionId };
  const [viewerId] = useState(() => `dashboard-${crypto.randomUUID()}`);
  const [epoch, setEpoch] = useState<number | null>(null);
  const attach = useMutation(trpc.leases.attachViewer.mutationOptions());
  const heartbeat = useMutation(trpc.leases.heartbeatViewer.mutationOptions());
  const detach = useMutation(trpc.leases.detachViewer.mutationOptions());
  const detachRef = useRef(detach.mutate);
  detachRef.current = detach.mutate;

  const { boxLive } = input;
  useEffect(() => {
    if (!boxLive || epoch !== null || attach.isPending) return;
    attach.mutate(
      { ...scope, viewerId },
      {
        onSuccess: (arrived) => {
          if (arrived.role !== "fenced" && arrived.role !== "blocked") setEpoch(arrived.epoch);
        },
      },
    );
    // One attach per live period: the mutation's own state is not a reason to run again.
  }, [boxLive, epoch]);

  useEffect(() => {
    if (epoch === null) return;
    const timer = setInterval(() => {
      heartbeat.mutate(
        { ...scope, viewerId, expectedEpoch: epoch },
        {
          onSuccess: (beat) => {
            if (!beat.alive) setEpoch(null);
          },
        },
      );
    }, HEARTBEAT_MS);
    return () => clearInterval(timer);
  }, [epoch]);

  // Detach once, when the page goes (a closed tab's holder expires with the viewer TTL).
  useEffect(
    () => () => {
      detachRef.current({ ...scope, viewerId });
    },
    [],
  );
  return epoch;
}
