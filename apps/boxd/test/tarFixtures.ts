import { pack, type Headers } from "tar-stream";

export type FixtureEntry = Headers & { readonly body?: string; pax?: Record<string, string> };

/** A tar archive of exactly these entries, in this order (for hostile-archive tests). */
export async function tarOf(entries: readonly FixtureEntry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of archive) chunks.push(chunk);
  })();
  for (const { body, ...header } of entries) {
    await new Promise<void>((resolve, reject) => {
      archive.entry({ mode: 0o644, ...header }, body ?? "", (error) => {
        if (error) reject(error);
        else resolve();
      });
    });
  }
  archive.finalize();
  await collected;
  return Buffer.concat(chunks);
}
