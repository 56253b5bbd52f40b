/**
 * DELETE on a collection (`deletecollection`): every object the label and field selectors match
 * is deleted as a DELETE of its own would delete it (finalizers, propagation, graceful pods), and
 * the answer is the kind's list of what each deletion returned (K7 `DeleteCollection`, which the
 * handler answers as the list object; §4.9).
 */
import type { RequestContext } from "./codec.ts";
import { stamp } from "./codec.ts";
import type { DeleteOptions, DeletionSystem } from "./deletion.ts";
import { selectorOf, validateListOptions } from "./listing.ts";
import { meta } from "./objects.ts";
import type { Target } from "./objectRegistry.ts";
import { resourceKey } from "./objectRegistry.ts";
import type { ApiResponse } from "./resourceHandlers.ts";
import { groupVersion } from "./resourceTypes.ts";
import type { ObjectStore } from "./store.ts";

export function deleteCollection(
  $: { store: ObjectStore; deletion: DeletionSystem },
  request: { target: Target; query: URLSearchParams; options: DeleteOptions },
  context: RequestContext,
): ApiResponse {
  const { target, query, options } = request;
  const { type, version } = target;
  const matches = selectorOf(type, query);
  validateListOptions(query);
  const resourceVersion = String($.store.currentRevision);
  const items = $.store
    .list(resourceKey(type), target.namespace)
    .filter(matches)
    .map((object) => {
      const name = meta(object).name ?? "";
      const shown = stamp(
        type,
        $.deletion.delete(target, { name, options }, context).object,
        version,
      );
      // As in a list: core items come without kind/apiVersion, custom resource items keep them (§2).
      if (type.custom === undefined) {
        delete shown.kind;
        delete shown.apiVersion;
      }
      return shown;
    });
  return {
    status: 200,
    body: {
      apiVersion: groupVersion(type, version),
      kind: type.listKind,
      metadata: { resourceVersion },
      items,
    },
  };
}
