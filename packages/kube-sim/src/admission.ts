/**
 * The seam for validating admission: hooks run after defaulting and schema validation and before
 * storage, on every writer (§4.1, §6.3). Part 2 plugs ValidatingAdmissionPolicy evaluation in here.
 */
import type { KubeStatusError } from "./errors.ts";
import type { KubeObject } from "./objects.ts";
import type { ResourceType } from "./resourceTypes.ts";

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE";

/** Who makes a request. Authentication is not simulated, so HTTP requests use {@link DEFAULT_USER}. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
}

/** The identity a kubeconfig for a kind or kubeadm cluster has. */
export const DEFAULT_USER: UserInfo = {
  username: "kubernetes-admin",
  groups: ["system:masters", "system:authenticated"],
};

export interface AdmissionRequest {
  operation: AdmissionOperation;
  type: ResourceType;
  /** The version the request used; objects are shown at the storage version. */
  version: string;
  subresource: "" | "status";
  namespace: string | undefined;
  name: string;
  /** The object to be stored; undefined on DELETE. */
  object: KubeObject | undefined;
  /** The stored object; undefined on CREATE. */
  oldObject: KubeObject | undefined;
  /** Filled from the request context by the registry: in-process writers may set their own. */
  userInfo?: UserInfo;
  dryRun?: boolean;
}

/**
 * A validating admission hook. It denies by throwing a `KubeStatusError` and may return warnings,
 * which are sent as Warning headers. A hook that both warns and denies returns `deny`: the
 * warnings still go out with the error, as a real server's warning recorder sends them.
 */
export type AdmissionHook = (
  request: AdmissionRequest,
) => { warnings?: string[]; deny?: KubeStatusError } | undefined;
