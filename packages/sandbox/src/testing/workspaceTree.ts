import { createCipheriv } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface TreeShape {
  /** Roughly how many bytes of file content (within a few percent). */
  readonly bytes: number;
  /** How many entries: files plus the folders that hold them. */
  readonly entries: number;
  /** The same seed gives the same tree, byte for byte. */
  readonly seed: number;
}

export interface TreeFacts {
  readonly files: number;
  readonly folders: number;
  readonly bytes: number;
}

const FILES_PER_FOLDER = 50;
const MAX_FILE = 1024 * 1024;
const WORDS = [
  "const",
  "return",
  "function",
  "import",
  "export",
  "await",
  "async",
  "value",
  "lease",
  "box",
  "workspace",
  "archive",
  "revision",
  "=>",
  "{",
  "}",
  "(",
  ");",
  "if",
  "else",
  "for",
  "of",
];

/**
 * Writes a deterministic workspace-like tree under `root`: half the bytes random (like
 * compressed assets and binaries), half source-like text; file sizes from 0 B to 1 MiB, skewed
 * small as real trees are; 50 files per folder, two levels deep. For tests and benchmarks.
 */
export async function writeWorkspaceTree(root: string, shape: TreeShape): Promise<TreeFacts> {
  const random = mulberry32(shape.seed);
  const folders = Math.max(1, Math.round(shape.entries / (FILES_PER_FOLDER + 1)));
  const files = Math.max(1, shape.entries - folders);
  const mean = shape.bytes / files;
  // Sizes: a power law scaled to the wanted total, each capped at 1 MiB.
  const raw = Array.from({ length: files }, () => Math.pow(random(), 3));
  const scale = (mean * files) / raw.reduce((sum, value) => sum + value, 0);
  const sizes = raw.map((value, index) =>
    index % 97 === 0 ? 0 : Math.min(MAX_FILE, Math.round(value * scale)),
  );
  let bytes = 0;
  for (let index = 0; index < files; index += 1) {
    const folderIndex = index % folders;
    const folder = join(root, `pkg-${String(folderIndex % 20)}`, `mod-${String(folderIndex)}`);
    if (index < folders) await mkdir(folder, { recursive: true });
    const size = sizes[index] ?? 0;
    const binary = index % 2 === 0;
    const name = binary ? `asset-${String(index)}.bin` : `source-${String(index)}.ts`;
    await writeFile(join(folder, name), binary ? seededBytes(random, size) : text(random, size));
    bytes += size;
  }
  return { files, folders, bytes };
}

/** Incompressible bytes, deterministic in the seed: AES-CTR's keystream (fast, not secret). */
function seededBytes(random: () => number, size: number): Buffer {
  const key = Buffer.alloc(16);
  for (let offset = 0; offset < 16; offset += 4) {
    key.writeUInt32LE(Math.floor(random() * 0x100000000) >>> 0, offset);
  }
  return createCipheriv("aes-128-ctr", key, Buffer.alloc(16)).update(Buffer.alloc(size));
}

function text(random: () => number, size: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const word = WORDS[Math.floor(random() * WORDS.length)] ?? "x";
    const piece = random() < 0.1 ? `${word}\n` : `${word} `;
    parts.push(piece);
    length += piece.length;
  }
  return parts.join("").slice(0, size);
}

/** A small, fast, seeded PRNG. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
