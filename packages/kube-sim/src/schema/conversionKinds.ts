import type { JsonRecord } from "./json.ts";

/**
 * One kind's conversion between v1alpha1 and the v1beta1 hub. Both directions receive a deep
 * copy they may change and return; apiVersion and pruning are the caller's.
 */
export interface KindConversion {
  toHub(alpha: JsonRecord): JsonRecord;
  fromHub(hub: JsonRecord): JsonRecord;
}
