import { randomBytes, randomUUID } from "node:crypto";
import type { BoxClient } from "@berth/box-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BackendError,
  type Backend,
  type BackendErrorCode,
  type BoxInfo,
  type BoxMetadata,
} from "../../spawner/backend.ts";
import type { BackendContractFixture, BackendContractSetup } from "./contractFixture.ts";

/** How long a box of the suite may take to serve. */
const READY_MS = 30_000;

/** A box the suite made, with the adapter of the installation that made it. */
interface MadeBox {
  readonly instanceId: string;
  readonly metadata: BoxMetadata;
  readonly backend: Backend;
}

/**
 * The Backend port's contract as vitest tests, for any adapter: its test file calls this with a
 * fixture, and each property is one test. Three boxes serve the whole suite (two of installation
 * A, one of B), each made on first use so any test also runs alone; the tests that change a box
 * come last and use the second box only.
 */
export function describeBackendContract(name: string, setup: BackendContractSetup): void {
  describe(`Backend contract: ${name}`, () => {
    let fixture: BackendContractFixture | undefined;
    const installationA = randomUUID();
    const installationB = randomUUID();
    const nonce = randomBytes(4).toString("hex");
    const made = new Map<string, Promise<MadeBox>>();

    const fix = (): BackendContractFixture => {
      if (fixture === undefined) throw new Error("the contract fixture is made before the tests");
      return fixture;
    };
    const metadataOf = (box: string): BoxMetadata => ({
      workspaceId: `ws-${box}-${nonce}`,
      leaseId: `lease-${box}-${nonce}`,
      sandboxGroupId: `group-${box}-${nonce}`,
      epoch: 3,
      allocationId: `alloc-${box}-${nonce}`,
    });
    const makeOnce = (
      box: string,
      installationId: string,
      extra: Partial<BoxMetadata> = {},
    ): Promise<MadeBox> => {
      let making = made.get(box);
      if (making === undefined) {
        const backend = fix().adapter(installationId);
        const metadata = { ...metadataOf(box), ...extra };
        // A box made may still be starting: ready is the port's one wait for it to serve.
        making = backend
          .create({ metadata, profile: fix().profile })
          .then(async ({ instanceId }) => {
            await backend.ready(instanceId, { timeoutMs: READY_MS });
            return { instanceId, metadata, backend };
          });
        made.set(box, making);
      }
      return making;
    };
    const first = () => makeOnce("first", installationA);
    // A caller's installation id is ignored: the box is the creating adapter's installation's.
    const second = () => makeOnce("second", installationA, { installationId: randomUUID() });
    const foreign = () => makeOnce("foreign", installationB);

    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      const boxes = await Promise.allSettled(made.values());
      for (const box of boxes)
        if (box.status === "fulfilled") await box.value.backend.terminate(box.value.instanceId);
      await fixture?.dispose();
    });

    it("create is idempotent per allocation: the same box, its files seen through either client", async () => {
      const box = await first();
      const bytes = randomBytes(2048);
      await write(await box.backend.connect(box.instanceId), "idempotent/blob.bin", bytes);
      // Another adapter object of the same installation, as a spawner's successor would be.
      const successor = fix().adapter(installationA);
      const again = await successor.create({ metadata: box.metadata, profile: fix().profile });
      expect(again.instanceId).toBe(box.instanceId);
      expect(await read(await successor.connect(again.instanceId), "idempotent/blob.bin")).toEqual(
        bytes,
      );
      // And the same adapter object asked again.
      expect(
        (await box.backend.create({ metadata: box.metadata, profile: fix().profile })).instanceId,
      ).toBe(box.instanceId);
    });

    it("create of the same allocation for another profile, workspace or lease is refused, the box untouched", async () => {
      const box = await first();
      const client = await box.backend.connect(box.instanceId);
      await write(client, "refused/kept.txt", Buffer.from("kept\n"));
      const profile = fix().profile;
      const refusals = [
        { metadata: box.metadata, profile: { ...profile, image: `${profile.image}-other` } },
        { metadata: box.metadata, profile: { ...profile, template: `${profile.template}-other` } },
        {
          metadata: { ...box.metadata, workspaceId: `${box.metadata.workspaceId}-other` },
          profile,
        },
        { metadata: { ...box.metadata, leaseId: `${box.metadata.leaseId}-other` }, profile },
      ];
      for (const input of refusals) {
        const refused = await box.backend.create(input).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(BackendError);
        expect((refused as BackendError).code).toBe("invalid");
      }
      const listed = find(await box.backend.inventory(), box.instanceId);
      expect(listed).toMatchObject({ metadata: box.metadata, state: "running" });
      expect(await read(client, "refused/kept.txt")).toEqual(Buffer.from("kept\n"));
    });

    it("ready answers a client of a serving box; for a box never made it fails not_found at once", async () => {
      const box = await first();
      const client = await box.backend.ready(box.instanceId, { timeoutMs: READY_MS });
      expect((await client.exec({ argv: ["true"] })).exitCode).toBe(0);
      const started = performance.now();
      const missing = await box.backend.ready(fix().absentInstanceId(), { timeoutMs: 60_000 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(missing).toBeInstanceOf(BackendError);
      expect((missing as BackendError).code).toBe("not_found");
      // Not the deadline: a box that does not exist will not start by waiting.
      expect(performance.now() - started).toBeLessThan(30_000);
    });

    it("create with another allocation gives another box", async () => {
      const [one, two] = await Promise.all([first(), second()]);
      expect(two.instanceId).not.toBe(one.instanceId);
      const mark = randomBytes(64);
      const oneClient = await one.backend.connect(one.instanceId);
      const twoClient = await two.backend.connect(two.instanceId);
      await write(oneClient, "another/mark.bin", mark);
      await expect(read(twoClient, "another/mark.bin")).rejects.toThrow();
      const other = randomBytes(64);
      await write(twoClient, "another/mark.bin", other);
      expect(await read(oneClient, "another/mark.bin")).toEqual(mark);
      expect(await read(twoClient, "another/mark.bin")).toEqual(other);
    });

    it("connect reaches the box's boxd", async () => {
      const box = await first();
      const client = await box.backend.connect(box.instanceId);
      expect((await client.exec({ argv: ["true"] })).exitCode).toBe(0);
      expect((await client.exec({ argv: ["false"] })).exitCode).not.toBe(0);
      await write(client, "reach/listed.txt", Buffer.from("listed\n"));
      const listing = await client.list({ path: "reach" });
      expect(listing.entries.map((entry) => entry.name)).toEqual(["listed.txt"]);
    });

    it("inventory shows each box with its metadata, its installation's id and its state", async () => {
      const [one, two] = await Promise.all([first(), second()]);
      const boxes = await fix().adapter(installationA).inventory();
      expect(find(boxes, one.instanceId)).toMatchObject({
        instanceId: one.instanceId,
        metadata: { ...one.metadata, installationId: installationA },
        state: "running",
      });
      // The caller's installation id was replaced by the adapter's own.
      expect(find(boxes, two.instanceId)).toMatchObject({
        metadata: { ...two.metadata, installationId: installationA },
        state: "running",
      });
      expect(find(boxes, one.instanceId)?.createdAt).toBeInstanceOf(Date);
    });

    it("inventory is scoped to the installation: another's boxes on the same store are never listed", async () => {
      const [one, two, theirs] = await Promise.all([first(), second(), foreign()]);
      expect(theirs.instanceId).not.toBe(one.instanceId);
      const ours = ids(await fix().adapter(installationA).inventory());
      expect(ours).toEqual(expect.arrayContaining([one.instanceId, two.instanceId]));
      expect(ours).not.toContain(theirs.instanceId);
      const listedByB = await fix().adapter(installationB).inventory();
      expect(ids(listedByB)).toEqual([theirs.instanceId]);
      expect(find(listedByB, theirs.instanceId)?.metadata.installationId).toBe(installationB);
    });

    it("suspend keeps the disk; resume serves the same files", async () => {
      const box = await second();
      const bytes = randomBytes(4096);
      await write(await box.backend.connect(box.instanceId), "kept/disk.bin", bytes);
      await box.backend.suspend(box.instanceId);
      expect(find(await box.backend.inventory(), box.instanceId)?.state).toBe("suspended");
      await expectUnreachable(box.backend, box.instanceId, "unavailable");
      // A successor's adapter resumes it: nothing of the box lives in the adapter object.
      const successor = fix().adapter(installationA);
      const confinement = await successor.resume(box.instanceId);
      const listed = find(await successor.inventory(), box.instanceId);
      expect(listed?.state).toBe("running");
      // The resume reports what the box runs with (the spawner records it), as inventory lists it.
      expect(confinement).toEqual({
        isolation: listed?.isolation,
        network: listed?.network,
        limits: listed?.limits,
      });
      expect(await read(await successor.connect(box.instanceId), "kept/disk.bin")).toEqual(bytes);
      expect(await read(await box.backend.connect(box.instanceId), "kept/disk.bin")).toEqual(bytes);
    });

    it("terminate of a box already gone, or never made, succeeds", async () => {
      const box = await second();
      await box.backend.terminate(box.instanceId);
      expect(find(await box.backend.inventory(), box.instanceId)?.state ?? "gone").toBe("gone");
      await expectUnreachable(box.backend, box.instanceId, "not_found");
      await box.backend.terminate(box.instanceId);
      await fix().adapter(installationA).terminate(box.instanceId);
      await box.backend.terminate(fix().absentInstanceId());
      // The other boxes are untouched.
      const one = await first();
      expect(find(await one.backend.inventory(), one.instanceId)?.state).toBe("running");
    });
  });
}

function find(boxes: readonly BoxInfo[], instanceId: string): BoxInfo | undefined {
  return boxes.find((box) => box.instanceId === instanceId);
}

function ids(boxes: readonly BoxInfo[]): string[] {
  return boxes.map((box) => box.instanceId);
}

async function write(client: BoxClient, path: string, bytes: Buffer): Promise<void> {
  await client.write({
    path,
    content: bytes.toString("base64"),
    encoding: "base64",
    createParents: true,
  });
}

async function read(client: BoxClient, path: string): Promise<Buffer> {
  const answer = await client.read({ path, encoding: "base64" });
  return Buffer.from(answer.content, "base64");
}

/**
 * A box that cannot be reached: connect refuses with `code` (the local adapter's way), or an
 * adapter that hands out clients without dialing gives one whose first call fails.
 */
async function expectUnreachable(
  backend: Backend,
  instanceId: string,
  code: BackendErrorCode,
): Promise<void> {
  let client: BoxClient;
  try {
    client = await backend.connect(instanceId);
  } catch (error) {
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe(code);
    return;
  }
  await expect(client.exec({ argv: ["true"] })).rejects.toThrow();
}
