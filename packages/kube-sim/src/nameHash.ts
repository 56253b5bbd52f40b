/** `NameHash` of agent-sandbox (§8, A3): 32-bit FNV-1a of the UTF-8 name as 8 lowercase hex digits. */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export function nameHash(name: string): string {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(name)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
