// Sums a V8 .cpuprofile's self time by function and by package, to show where the time goes.
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const dir = process.argv[2] ?? "results/profile";
// One profile per thread; the main thread's (the loader's are small) is the largest.
const files = (await readdir(dir)).filter((name) => name.endsWith(".cpuprofile"));
const sizes = await Promise.all(
  files.map(async (name) => ({ name, size: (await stat(join(dir, name))).size })),
);
const file = sizes.sort((a, b) => b.size - a.size)[0]?.name;
if (file === undefined) throw new Error(`no .cpuprofile in ${dir}`);
const profile = JSON.parse(await readFile(join(dir, file), "utf8")) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const node = byId.get(id);
  const micros = profile.timeDeltas[i] ?? 0;
  if (node === undefined) return;
  total += micros;
  const { functionName, url, lineNumber } = node.callFrame;
  const where =
    /node_modules\/\.pnpm\/([^/]+)\//.exec(url)?.[1] ??
    (url === "" ? "(native/idle)" : url.replace(/^.*\/work\/main\//, ""));
  const fn = `${functionName || "(anonymous)"} ${where}:${String(lineNumber)}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
  const pkg = where.split(":")[0] ?? where;
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
});
const top = (map: Map<string, number>, n: number) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
process.stdout.write(
  `self time by package (${(total / 1e6).toFixed(1)} s sampled):\n${top(byPackage, 15).join("\n")}\n\n`,
);
process.stdout.write(`top functions:\n${top(byFunction, 25).join("\n")}\n`);
