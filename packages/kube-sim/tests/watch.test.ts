/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node's model classes are plain data, and request bodies are object literals as in its own examples. */
import * as k8s from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import {
  CLAIMS,
  MERGE,
  SANDBOXES,
  SANDBOX_PATH,
  metadataOf,
  sandbox,
  simFixture,
  watchUntil,
  type Obj,
} from "./harness.ts";

/** Reads a raw watch response to its end (the server must close it). */
async function readStream(url: string): Promise<{ status: number; lines: Obj[] }> {
  const response = await fetch(url);
  const text = await response.text();
  return {
    status: response.status,
    lines: text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Obj),
  };
}

describe("watch (§4.8, §9.9)", () => {
  it("§9.9 without resourceVersion a watch starts with ADDED for every existing object", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("a") });
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("b") });
    const { events } = await watchUntil(
      f.kc,
      { path: SANDBOX_PATH, query: {} },
      (seen) => seen.length >= 2,
    );
    expect(events.map((e) => [e.type, metadataOf(e.object).name, e.object.kind])).toEqual([
      ["ADDED", "a", "Sandbox"],
      ["ADDED", "b", "Sandbox"],
    ]);
  });

  it("§9.9 from a list's resourceVersion only newer events arrive, in order", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("old") });
    const list = (await f.custom.listNamespacedCustomObject({ ...SANDBOXES })) as Obj;
    const rv = String(metadataOf(list).resourceVersion);
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("new") });
    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "old", body: { metadata: { labels: { a: "1" } } } },
      MERGE,
    );
    await f.custom.deleteNamespacedCustomObject({ ...SANDBOXES, name: "new" });
    const { events } = await watchUntil(
      f.kc,
      { path: SANDBOX_PATH, query: { resourceVersion: rv } },
      (seen) => seen.length >= 3,
    );
    expect(events.map((e) => [e.type, metadataOf(e.object).name])).toEqual([
      ["ADDED", "new"],
      ["MODIFIED", "old"],
      ["DELETED", "new"],
    ]);
    const versions = events.map((e) => Number(metadataOf(e.object).resourceVersion));
    expect(versions.every((v) => v > Number(rv))).toBe(true);
  });

  it("§9.9 a compacted resourceVersion gets HTTP 200, one ERROR 410 Expired event, then EOF", async () => {
    await using f = await simFixture();
    const created = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("a"),
    })) as Obj;
    const rv = String(metadataOf(created).resourceVersion);
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("b") });
    f.sim.compact();
    const compacted = f.sim.store.currentRevision;
    const { status, lines } = await readStream(
      `${f.sim.url}${SANDBOX_PATH}?watch=true&resourceVersion=${rv}`,
    );
    expect(status).toBe(200);
    expect(lines).toEqual([
      {
        type: "ERROR",
        object: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `too old resource version: ${rv} (${compacted})`,
          reason: "Expired",
          code: 410,
        },
      },
    ]);
  });

  it("§4.8 the bounded history compacts by itself once the window is exceeded", async () => {
    await using f = await simFixture({ historyWindow: 3 });
    const first = (await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: sandbox("a"),
    })) as Obj;
    for (const name of ["b", "c", "d", "e"])
      await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox(name) });
    const { lines } = await readStream(
      `${f.sim.url}${SANDBOX_PATH}?watch=1&resourceVersion=${String(metadataOf(first).resourceVersion)}`,
    );
    expect(lines[0]?.type).toBe("ERROR");
    expect((lines[0]?.object as Obj).code).toBe(410);
  });

  it("§9.9 a client-node informer recovers from compaction and dropped watches by relisting", async () => {
    await using f = await simFixture();
    let lists = 0;
    const informer = k8s.makeInformer(f.kc, SANDBOX_PATH, async () => {
      lists++;
      return (await f.custom.listNamespacedCustomObject({
        ...SANDBOXES,
      })) as k8s.KubernetesListObject<k8s.KubernetesObject>;
    });
    const added: string[] = [];
    const waiters: (() => void)[] = [];
    informer.on("add", (obj) => {
      added.push(obj.metadata?.name ?? "");
      for (const wake of waiters.splice(0)) wake();
    });
    const seen = async (name: string): Promise<void> => {
      while (!added.includes(name)) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("before") });
    await informer.start();
    await seen("before");
    // Synchronously, so the informer cannot reconnect in between: drop its watch, write, and
    // compact. Its resume version is then too old and only a relist can show "during".
    f.sim.closeWatches();
    const type = f.sim.types.find("agents.x-k8s.io", "v1beta1", "sandboxes");
    if (type === undefined) throw new Error("sandboxes are served");
    f.sim.registry.create({ type, version: "v1beta1", namespace: "default" }, sandbox("during"), {
      warnings: [],
      fieldValidation: "Strict",
    });
    f.sim.compact();
    await seen("during");
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("after") });
    await seen("after");
    await informer.stop();
    expect(lists).toBe(2);
    expect(
      informer
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(["after", "before", "during"]);
  });

  it("§4.8 bookmarks come only with allowWatchBookmarks=true and carry the current resourceVersion", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("a") });
    const rv = String(f.sim.store.currentRevision);
    const withBookmarks = await watchUntil(
      f.kc,
      { path: SANDBOX_PATH, query: { allowWatchBookmarks: true } },
      (seen) => seen.some((e) => e.type === "BOOKMARK"),
    );
    const bookmark = withBookmarks.events.find((e) => e.type === "BOOKMARK");
    expect(bookmark?.object).toEqual({
      kind: "Sandbox",
      apiVersion: "agents.x-k8s.io/v1beta1",
      metadata: { resourceVersion: rv },
    });
    const { lines } = await readStream(`${f.sim.url}${SANDBOX_PATH}?watch=true&timeoutSeconds=1`);
    expect(lines.map((l) => l.type)).toEqual(["ADDED"]);
  });

  it("§1 watch and allowWatchBookmarks read as the real server reads booleans: the Python client's True is true, False and 0 are false", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("a") });
    const { status, lines } = await readStream(
      `${f.sim.url}${SANDBOX_PATH}?watch=True&allowWatchBookmarks=True&timeoutSeconds=1`,
    );
    expect(status).toBe(200);
    // A bookmark after the initial events and one as the timeout ends the stream.
    expect(lines.map((l) => l.type)).toEqual(["ADDED", "BOOKMARK", "BOOKMARK"]);
    for (const value of ["False", "0", "false"]) {
      const listed = await f.http(`${SANDBOX_PATH}?watch=${value}`);
      expect([listed.status, listed.body.kind]).toEqual([200, "SandboxList"]);
    }
  });

  it("§4.8 timeoutSeconds ends the stream cleanly; the server can close every open watch", async () => {
    await using f = await simFixture();
    const ended = await watchUntil(
      f.kc,
      { path: SANDBOX_PATH, query: { timeoutSeconds: 1 } },
      () => false,
    );
    expect(ended.ended).toBe(true);
    const dropped = watchUntil(f.kc, { path: SANDBOX_PATH, query: {} }, () => false);
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("a") });
    f.sim.closeWatches();
    const result = await dropped;
    expect(result.ended).toBe(true);
  });

  it("§4.8 a filtered watch sees an object leave its selector as DELETED and enter it as ADDED", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      body: { ...sandbox("a"), metadata: { name: "a", labels: { team: "x" } } },
    });
    const rv = String(f.sim.store.currentRevision);
    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "a", body: { metadata: { labels: { team: "y" } } } },
      MERGE,
    );
    await f.custom.patchNamespacedCustomObject(
      { ...SANDBOXES, name: "a", body: { metadata: { labels: { team: "x" } } } },
      MERGE,
    );
    const { events } = await watchUntil(
      f.kc,
      { path: SANDBOX_PATH, query: { resourceVersion: rv, labelSelector: "team=x" } },
      (seen) => seen.length >= 2,
    );
    expect(events.map((e) => e.type)).toEqual(["DELETED", "ADDED"]);
  });

  it("§8.5 the official client's claim wait (fieldSelector metadata.name, resourceVersion 0) sees the claim and its status", async () => {
    await using f = await simFixture();
    await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: {
        apiVersion: "extensions.agents.x-k8s.io/v1beta1",
        kind: "SandboxClaim",
        metadata: { name: "c1" },
        spec: { warmPoolRef: { name: "p" } },
      },
    });
    await f.custom.createNamespacedCustomObject({
      ...CLAIMS,
      body: {
        apiVersion: "extensions.agents.x-k8s.io/v1beta1",
        kind: "SandboxClaim",
        metadata: { name: "c2" },
        spec: { warmPoolRef: { name: "p" } },
      },
    });
    const path = "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/sandboxclaims";
    const watching = watchUntil(
      f.kc,
      { path, query: { fieldSelector: "metadata.name=c1", resourceVersion: "0" } },
      (seen) =>
        seen.some(
          (e) =>
            (e.object.status as { sandbox?: { name?: string } } | undefined)?.sandbox?.name ===
            "pool-abcde",
        ),
    );
    await f.custom.patchNamespacedCustomObjectStatus(
      { ...CLAIMS, name: "c2", body: { status: { sandbox: { name: "other" } } } },
      MERGE,
    );
    await f.custom.patchNamespacedCustomObjectStatus(
      { ...CLAIMS, name: "c1", body: { status: { sandbox: { name: "pool-abcde" } } } },
      MERGE,
    );
    const { events } = await watching;
    expect(events.map((e) => [e.type, metadataOf(e.object).name])).toEqual([
      ["ADDED", "c1"],
      ["MODIFIED", "c1"],
    ]);
  });

  it("§1 cluster-wide list and watch cover every namespace", async () => {
    await using f = await simFixture();
    await f.core.createNamespace({ body: { metadata: { name: "other" } } });
    await f.custom.createNamespacedCustomObject({ ...SANDBOXES, body: sandbox("a") });
    await f.custom.createNamespacedCustomObject({
      ...SANDBOXES,
      namespace: "other",
      body: sandbox("b"),
    });
    const all = (await f.custom.listClusterCustomObject({
      group: "agents.x-k8s.io",
      version: "v1beta1",
      plural: "sandboxes",
    })) as { items: Obj[] };
    expect(all.items.map((i) => metadataOf(i).namespace)).toEqual(["default", "other"]);
    const { events } = await watchUntil(
      f.kc,
      { path: "/apis/agents.x-k8s.io/v1beta1/sandboxes", query: {} },
      (seen) => seen.length >= 2,
    );
    expect(events).toHaveLength(2);
  });
});
