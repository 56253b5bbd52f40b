/** One served version of a custom resource, as its CRD declares it. */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  /** The CRD's own text, else Kubernetes' default; undefined when the version is not deprecated. */
  deprecationWarning: string | undefined;
  subresources: {
    status: boolean;
    scale:
      | {
          specReplicasPath: string;
          statusReplicasPath: string;
          labelSelectorPath: string | undefined;
        }
      | undefined;
  };
}

/** A custom resource kind: its names, scope and versions (schemas are kept beside it). */
export interface CustomResourceType {
  group: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  versions: CrdVersion[];
  storageVersion: string;
}

/** Kubernetes' `StatusCause.reason` values that schema validation produces. */
export type FieldCauseReason =
  | "FieldValueRequired"
  | "FieldValueNotSupported"
  | "FieldValueInvalid"
  | "FieldValueTypeInvalid"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueDuplicate";

/** One cause of a 422 Invalid answer, shaped like `details.causes[i]`. */
export interface FieldCause {
  reason: FieldCauseReason;
  field: string;
  message: string;
}

/** The `fieldValidation` query parameter; the server decides what unknown fields mean. */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

/** The outcome of admitting a custom resource: the pruned, defaulted object and what was wrong. */
export interface Admission {
  object: Record<string, unknown>;
  /** Pruned fields as Kubernetes prints them (`spec.replicas`, `spec.x[0].y`), for warnings or Strict. */
  unknownFields: string[];
  causes: FieldCause[];
}
