"""Conformance checks of kube-sim through the official Kubernetes Python client.

Usage: /usr/bin/python3 conformance.py KUBECONFIG

Prints one JSON line per check, {"name", "ok", "detail"}, after a first {"version"} line with
the client's version, and exits 1 when any check failed. Standard library plus the
`kubernetes` package only (Debian's python3-kubernetes). The spec sections named are those of
kube-sim's contract.

What this client (22.6) does that shapes the checks: CoreV1Api patches go out as
application/json-patch+json, which its REST layer turns into strategic-merge-patch+json for a
non-list body; CustomObjectsApi sends every patch as application/merge-patch+json and has no
content-type option, so a JSON patch on a custom resource goes through call_api or the dynamic
client; booleans go out as `True`/`False` (`watch=True`); the dynamic client's server_side_apply
cannot send application/apply-patch+yaml at all, so apply is not checked here.
"""

import json
import os
import sys
import tempfile
import traceback

import kubernetes
from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException

NS = "default"
GROUP, VERSION, PLURAL = "agents.x-k8s.io", "v1beta1", "sandboxes"

results = []


def report(name, ok, detail=""):
    results.append(ok)
    print(json.dumps({"name": name, "ok": bool(ok), "detail": detail}), flush=True)


def check(name):
    """Runs the decorated function as one check; an exception is a failure with its text."""

    def wrap(fn):
        try:
            detail = fn()
            report(name, True, detail or "")
        except AssertionError as error:
            report(name, False, str(error))
        except Exception as error:  # noqa: BLE001 - every failure becomes a result line
            report(name, False, "".join(traceback.format_exception_only(type(error), error)).strip())
        return fn

    return wrap


def expect(actual, wanted, what):
    if actual != wanted:
        raise AssertionError("%s: wanted %r, got %r" % (what, wanted, actual))


def refusal(call):
    """Runs call, which must raise ApiException; answers (status, Status body)."""
    try:
        call()
    except ApiException as error:
        body = json.loads(error.body) if error.body else {}
        return error.status, body
    raise AssertionError("the call succeeded, wanted a refusal")


def expect_refusal(call, status, reason, message_part=None):
    code, body = refusal(call)
    expect(code, status, "HTTP status")
    expect(body.get("kind"), "Status", "body kind")
    expect(body.get("code"), status, "Status code")
    expect(body.get("reason"), reason, "Status reason")
    if message_part is not None and message_part not in body.get("message", ""):
        raise AssertionError("message %r lacks %r" % (body.get("message"), message_part))
    return "%d %s: %s" % (code, reason, body.get("message"))


def sandbox(name, labels=None):
    return {
        "apiVersion": "%s/%s" % (GROUP, VERSION),
        "kind": "Sandbox",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"podTemplate": {"spec": {"containers": [{"name": "main", "image": "busybox"}]}}},
    }


def main(kubeconfig):
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    custom = client.CustomObjectsApi()
    print(json.dumps({"version": kubernetes.__version__}), flush=True)

    def get_sb(name):
        return custom.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, name)

    # --- ConfigMaps through CoreV1Api (§4.1–4.3) ------------------------------------------

    @check("core: create a ConfigMap answers the stored object with server metadata")
    def _():
        created = core.create_namespaced_config_map(
            NS,
            client.V1ConfigMap(
                metadata=client.V1ObjectMeta(name="cm1", labels={"app": "a"}), data={"k": "v"}
            ),
        )
        expect(created.metadata.name, "cm1", "name")
        expect(created.data, {"k": "v"}, "data")
        assert created.metadata.uid, "no uid"
        assert created.metadata.resource_version, "no resourceVersion"
        # The client parses creationTimestamp into a datetime: the RFC 3339 form must parse.
        assert created.metadata.creation_timestamp is not None, "no creationTimestamp"
        expect(created.metadata.creation_timestamp.utcoffset().total_seconds(), 0, "UTC offset")
        core.create_namespaced_config_map(
            NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm2", labels={"app": "b"}))
        )

    @check("core: get a ConfigMap")
    def _():
        got = core.read_namespaced_config_map("cm1", NS)
        expect(got.data, {"k": "v"}, "data")
        expect(got.metadata.labels, {"app": "a"}, "labels")

    @check("core: create a taken name is 409 AlreadyExists")
    def _():
        return expect_refusal(
            lambda: core.create_namespaced_config_map(
                NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm1"))
            ),
            409,
            "AlreadyExists",
            'configmaps "cm1" already exists',
        )

    @check("core: get a missing ConfigMap is 404 NotFound")
    def _():
        return expect_refusal(
            lambda: core.read_namespaced_config_map("nope", NS),
            404,
            "NotFound",
            'configmaps "nope" not found',
        )

    @check("core: list with a label selector")
    def _():
        listed = core.list_namespaced_config_map(NS, label_selector="app=a")
        expect([i.metadata.name for i in listed.items], ["cm1"], "names")
        assert listed.metadata.resource_version, "list has no resourceVersion"

    @check("core: list with a field selector metadata.name")
    def _():
        listed = core.list_namespaced_config_map(NS, field_selector="metadata.name=cm2")
        expect([i.metadata.name for i in listed.items], ["cm2"], "names")

    @check("core: list across namespaces")
    def _():
        listed = core.list_config_map_for_all_namespaces(label_selector="app in (a,b)")
        expect(sorted(i.metadata.name for i in listed.items), ["cm1", "cm2"], "names")

    @check("core: an unsupported field selector is 400 BadRequest")
    def _():
        return expect_refusal(
            lambda: core.list_namespaced_config_map(NS, field_selector="data.k=v"),
            400,
            "BadRequest",
            "data.k",
        )

    @check("core: a malformed label selector is 400 BadRequest")
    def _():
        return expect_refusal(
            lambda: core.list_namespaced_config_map(NS, label_selector="a in (b"),
            400,
            "BadRequest",
        )

    @check("core: resourceVersionMatch without resourceVersion is 422 Invalid")
    def _():
        return expect_refusal(
            lambda: core.list_namespaced_config_map(NS, resource_version_match="NotOlderThan"),
            422,
            "Invalid",
            'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
            "resourceVersionMatch is forbidden unless resourceVersion is provided",
        )

    @check("core: resourceVersionMatch NotOlderThan from resourceVersion 0 lists")
    def _():
        listed = core.list_namespaced_config_map(
            NS, resource_version="0", resource_version_match="NotOlderThan"
        )
        expect(sorted(i.metadata.name for i in listed.items), ["cm1", "cm2"], "names")

    @check("core: an invalid name is 422 Invalid")
    def _():
        return expect_refusal(
            lambda: core.create_namespaced_config_map(
                NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="Not_A_Name"))
            ),
            422,
            "Invalid",
            "metadata.name",
        )

    @check("core: patch a ConfigMap with a dict body (strategic merge)")
    def _():
        # The Python client sends application/json-patch+json for CoreV1Api patches and turns it
        # into strategic-merge-patch+json when the body is not a list.
        patched = core.patch_namespaced_config_map("cm1", NS, {"data": {"k2": "v2"}})
        expect(patched.data, {"k": "v", "k2": "v2"}, "data")

    @check("core: patch a ConfigMap with a list body (JSON patch)")
    def _():
        patched = core.patch_namespaced_config_map(
            "cm1", NS, [{"op": "replace", "path": "/data/k", "value": "w"}]
        )
        expect(patched.data, {"k": "w", "k2": "v2"}, "data")

    @check("core: a failed JSON patch test is 422 Invalid")
    def _():
        return expect_refusal(
            lambda: core.patch_namespaced_config_map(
                "cm1", NS, [{"op": "test", "path": "/data/k", "value": "stale"}]
            ),
            422,
            "Invalid",
            "the server rejected our request due to an error in our request",
        )

    @check("core: replace with a stale resourceVersion is 409 Conflict")
    def _():
        current = core.read_namespaced_config_map("cm1", NS)
        core.patch_namespaced_config_map("cm1", NS, {"data": {"k3": "v3"}})
        current.data["k"] = "x"
        return expect_refusal(
            lambda: core.replace_namespaced_config_map("cm1", NS, current),
            409,
            "Conflict",
            "the object has been modified",
        )

    @check("core: delete a ConfigMap answers a Success Status, then get is 404")
    def _():
        answer = core.delete_namespaced_config_map("cm2", NS)
        expect(answer.status, "Success", "status")
        expect(answer.details.name, "cm2", "details.name")
        expect_refusal(lambda: core.read_namespaced_config_map("cm2", NS), 404, "NotFound")

    @check("core: delete a missing ConfigMap is 404 NotFound")
    def _():
        return expect_refusal(
            lambda: core.delete_namespaced_config_map("cm2", NS), 404, "NotFound"
        )

    # --- Pods (§4.3 pod field selectors, §4.9) ---------------------------------------------

    @check("core: create and list Pods with a pod field selector")
    def _():
        pod = client.V1Pod(
            metadata=client.V1ObjectMeta(name="p1", labels={"app": "a"}),
            spec=client.V1PodSpec(
                containers=[client.V1Container(name="main", image="busybox")],
                restart_policy="Never",
            ),
        )
        created = core.create_namespaced_pod(NS, pod)
        expect(created.metadata.name, "p1", "name")
        listed = core.list_namespaced_pod(NS, field_selector="spec.restartPolicy=Never")
        expect([i.metadata.name for i in listed.items], ["p1"], "names")
        listed = core.list_namespaced_pod(NS, field_selector="spec.restartPolicy!=Never")
        expect([i.metadata.name for i in listed.items], [], "names with !=")

    @check("core: delete a Pod answers the Pod")
    def _():
        deleted = core.delete_namespaced_pod("p1", NS, grace_period_seconds=0)
        expect(deleted.kind, "Pod", "kind")
        expect(deleted.metadata.name, "p1", "name")

    # --- Sandboxes through CustomObjectsApi (§4) ------------------------------------------

    @check("custom: create a Sandbox answers it defaulted with generation 1")
    def _():
        created = custom.create_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, sandbox("sb1", {"app": "a"})
        )
        expect(created["metadata"]["generation"], 1, "generation")
        expect(created["spec"].get("operatingMode"), "Running", "defaulted operatingMode")
        custom.create_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, sandbox("sb2", {"app": "b"})
        )

    @check("custom: get a Sandbox")
    def _():
        expect(get_sb("sb1")["metadata"]["labels"], {"app": "a"}, "labels")

    @check("custom: create a taken name is 409 AlreadyExists")
    def _():
        return expect_refusal(
            lambda: custom.create_namespaced_custom_object(
                GROUP, VERSION, NS, PLURAL, sandbox("sb1")
            ),
            409,
            "AlreadyExists",
            'sandboxes.agents.x-k8s.io "sb1" already exists',
        )

    @check("custom: get a missing Sandbox is 404 NotFound with details")
    def _():
        code, body = refusal(lambda: get_sb("nope"))
        expect(code, 404, "HTTP status")
        expect(body.get("reason"), "NotFound", "reason")
        expect(
            body.get("details"),
            {"name": "nope", "group": GROUP, "kind": PLURAL},
            "details",
        )
        return body.get("message")

    @check("custom: an unknown resource is 404 NotFound")
    def _():
        return expect_refusal(
            lambda: custom.list_namespaced_custom_object(GROUP, VERSION, NS, "nothings"),
            404,
            "NotFound",
            "the server could not find the requested resource",
        )

    @check("custom: a Sandbox without podTemplate is 422 Invalid")
    def _():
        body = sandbox("bad")
        del body["spec"]["podTemplate"]
        return expect_refusal(
            lambda: custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, body),
            422,
            "Invalid",
            "spec.podTemplate",
        )

    @check("custom: a body namespace other than the URL's is 400 BadRequest")
    def _():
        body = sandbox("sb9")
        body["metadata"]["namespace"] = "kube-system"
        return expect_refusal(
            lambda: custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, body),
            400,
            "BadRequest",
        )

    @check("custom: list with a label selector is a SandboxList")
    def _():
        listed = custom.list_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, label_selector="app=a"
        )
        expect(listed["kind"], "SandboxList", "kind")
        expect([i["metadata"]["name"] for i in listed["items"]], ["sb1"], "names")

    @check("custom: list with a field selector metadata.name")
    def _():
        listed = custom.list_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, field_selector="metadata.name=sb2"
        )
        expect([i["metadata"]["name"] for i in listed["items"]], ["sb2"], "names")

    @check("custom: a field selector on spec is 400 BadRequest")
    def _():
        return expect_refusal(
            lambda: custom.list_namespaced_custom_object(
                GROUP, VERSION, NS, PLURAL, field_selector="spec.operatingMode=Running"
            ),
            400,
            "BadRequest",
            "field label not supported: spec.operatingMode",
        )

    @check("custom: list across namespaces with paging")
    def _():
        first = custom.list_cluster_custom_object(GROUP, VERSION, PLURAL, limit=1)
        expect(len(first["items"]), 1, "first page")
        token = first["metadata"].get("continue")
        assert token, "no continue token"
        second = custom.list_cluster_custom_object(GROUP, VERSION, PLURAL, limit=1, _continue=token)
        expect(len(second["items"]), 1, "second page")
        expect(second["metadata"]["resourceVersion"], first["metadata"]["resourceVersion"], "rv")

    @check("custom: merge patch with a dict body changes the spec and bumps generation")
    def _():
        patched = custom.patch_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, "sb1", {"spec": {"operatingMode": "Suspended"}}
        )
        expect(patched["spec"]["operatingMode"], "Suspended", "operatingMode")
        expect(patched["metadata"]["generation"], 2, "generation")

    @check("custom: merge patch with a stale resourceVersion is 409 Conflict")
    def _():
        return expect_refusal(
            lambda: custom.patch_namespaced_custom_object(
                GROUP,
                VERSION,
                NS,
                PLURAL,
                "sb1",
                {"metadata": {"resourceVersion": "1"}, "spec": {"operatingMode": "Running"}},
            ),
            409,
            "Conflict",
            "the object has been modified",
        )

    @check("custom: a list body goes out as a merge patch and is 422 Invalid")
    def _():
        # CustomObjectsApi sends application/merge-patch+json whatever the body (client 22+);
        # a JSON array as a merge patch replaces the document and fails to decode (§3).
        return expect_refusal(
            lambda: custom.patch_namespaced_custom_object(
                GROUP,
                VERSION,
                NS,
                PLURAL,
                "sb1",
                [{"op": "replace", "path": "/spec/operatingMode", "value": "Running"}],
            ),
            422,
            "Invalid",
            "couldn't get version/kind",
        )

    def json_patch(name, ops, subresource=""):
        """A JSON patch on a Sandbox through the client's own transport, with the content type
        set explicitly (CustomObjectsApi does not offer one)."""
        path = "/apis/%s/%s/namespaces/%s/%s/%s%s" % (GROUP, VERSION, NS, PLURAL, name, subresource)
        return custom.api_client.call_api(
            path,
            "PATCH",
            header_params={
                "Content-Type": "application/json-patch+json",
                "Accept": "application/json",
            },
            body=ops,
            response_type="object",
            auth_settings=["BearerToken"],
            _return_http_data_only=True,
        )

    @check("custom: JSON patch with application/json-patch+json")
    def _():
        current = get_sb("sb1")
        patched = json_patch(
            "sb1",
            [
                {"op": "test", "path": "/metadata/resourceVersion", "value": current["metadata"]["resourceVersion"]},
                {"op": "add", "path": "/metadata/labels/extra", "value": "yes"},
            ],
        )
        expect(patched["metadata"]["labels"].get("extra"), "yes", "label")
        expect(patched["metadata"]["generation"], current["metadata"]["generation"], "generation")

    @check("custom: a failed JSON patch test is 422 Invalid and changes nothing")
    def _():
        before = get_sb("sb1")
        detail = expect_refusal(
            lambda: json_patch(
                "sb1",
                [
                    {"op": "test", "path": "/metadata/resourceVersion", "value": "1"},
                    {"op": "add", "path": "/metadata/labels/other", "value": "no"},
                ],
            ),
            422,
            "Invalid",
            "the server rejected our request due to an error in our request",
        )
        expect(get_sb("sb1")["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"], "rv")
        return detail

    @check("custom: a dict body under the JSON-patch type goes out as strategic merge and is 415")
    def _():
        # The client's REST layer turns application/json-patch+json into
        # application/strategic-merge-patch+json when the body is not a list; custom resources
        # refuse strategic merge (§3, §4.5).
        return expect_refusal(
            lambda: json_patch("sb1", {"spec": {}}),
            415,
            "UnsupportedMediaType",
            "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
        )

    @check("custom: patch of a missing Sandbox is 404 NotFound")
    def _():
        return expect_refusal(
            lambda: custom.patch_namespaced_custom_object(
                GROUP, VERSION, NS, PLURAL, "nope", {"metadata": {"labels": {"a": "b"}}}
            ),
            404,
            "NotFound",
        )

    @check("custom: replace without resourceVersion is 422 Invalid")
    def _():
        body = get_sb("sb2")
        del body["metadata"]["resourceVersion"]
        return expect_refusal(
            lambda: custom.replace_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "sb2", body),
            422,
            "Invalid",
            "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update",
        )

    @check("custom: replace with a stale resourceVersion is 409 Conflict")
    def _():
        body = get_sb("sb2")
        custom.patch_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, "sb2", {"metadata": {"labels": {"touched": "1"}}}
        )
        return expect_refusal(
            lambda: custom.replace_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "sb2", body),
            409,
            "Conflict",
        )

    # --- /status (§4.6) ---------------------------------------------------------------------

    condition = {
        "type": "Ready",
        "status": "False",
        "reason": "FromPython",
        "message": "set by the Python client",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }

    @check("status: merge patch of /status changes status only, not generation")
    def _():
        before = get_sb("sb2")
        patched = custom.patch_namespaced_custom_object_status(
            GROUP,
            VERSION,
            NS,
            PLURAL,
            "sb2",
            {"status": {"conditions": [condition]}, "spec": {"operatingMode": "Suspended"}},
        )
        expect(patched["status"]["conditions"][0]["reason"], "FromPython", "reason")
        expect(patched["spec"]["operatingMode"], before["spec"]["operatingMode"], "spec kept")
        expect(patched["metadata"]["generation"], before["metadata"]["generation"], "generation")
        assert patched["metadata"]["resourceVersion"] != before["metadata"]["resourceVersion"], "rv not bumped"

    @check("status: replace of /status with the current resourceVersion")
    def _():
        body = custom.get_namespaced_custom_object_status(GROUP, VERSION, NS, PLURAL, "sb2")
        body["status"]["conditions"][0]["reason"] = "Replaced"
        replaced = custom.replace_namespaced_custom_object_status(
            GROUP, VERSION, NS, PLURAL, "sb2", body
        )
        expect(replaced["status"]["conditions"][0]["reason"], "Replaced", "reason")
        return expect_refusal(
            lambda: custom.replace_namespaced_custom_object_status(
                GROUP, VERSION, NS, PLURAL, "sb2", body
            ),
            409,
            "Conflict",
        )

    @check("status: an invalid condition reason is 422 Invalid")
    def _():
        bad = dict(condition, reason="not a reason!")
        return expect_refusal(
            lambda: custom.patch_namespaced_custom_object_status(
                GROUP, VERSION, NS, PLURAL, "sb2", {"status": {"conditions": [bad]}}
            ),
            422,
            "Invalid",
            "reason",
        )

    @check("status: a SandboxTemplate has no /status (404)")
    def _():
        return expect_refusal(
            lambda: custom.get_namespaced_custom_object_status(
                "extensions.agents.x-k8s.io", "v1beta1", NS, "sandboxtemplates", "t1"
            ),
            404,
            "NotFound",
        )

    @check("scale: a SandboxWarmPool's /scale reads and merge-patches as autoscaling/v1 Scale")
    def _():
        group, version, plural = "extensions.agents.x-k8s.io", "v1beta1", "sandboxwarmpools"
        custom.create_namespaced_custom_object(
            group,
            version,
            NS,
            plural,
            {
                "apiVersion": "%s/%s" % (group, version),
                "kind": "SandboxWarmPool",
                "metadata": {"name": "pool1"},
                "spec": {"replicas": 1, "sandboxTemplateRef": {"name": "t1"}},
            },
        )
        scale = custom.get_namespaced_custom_object_scale(group, version, NS, plural, "pool1")
        expect((scale["kind"], scale["apiVersion"]), ("Scale", "autoscaling/v1"), "kind")
        expect(scale["spec"]["replicas"], 1, "spec.replicas")
        patched = custom.patch_namespaced_custom_object_scale(
            group, version, NS, plural, "pool1", {"spec": {"replicas": 3}}
        )
        expect(patched["spec"]["replicas"], 3, "patched spec.replicas")
        pool = custom.get_namespaced_custom_object(group, version, NS, plural, "pool1")
        expect(pool["spec"]["replicas"], 3, "the pool's spec.replicas")
        expect(pool["metadata"]["generation"], 2, "generation")
        custom.delete_namespaced_custom_object(group, version, NS, plural, "pool1")

    # --- watch (§4.8) -----------------------------------------------------------------------

    def events(func, *args, **kwargs):
        w = watch.Watch()
        seen = [
            (e["type"], e["raw_object"]["metadata"]["name"], e["raw_object"]["metadata"]["resourceVersion"])
            for e in w.stream(func, *args, **kwargs)
        ]
        return seen, w.resource_version

    @check("watch: without resourceVersion, ADDED for existing objects, ending at timeoutSeconds")
    def _():
        seen, _ = events(
            custom.list_namespaced_custom_object, GROUP, VERSION, NS, PLURAL, timeout_seconds=1
        )
        expect(sorted((t, n) for t, n, _ in seen), [("ADDED", "sb1"), ("ADDED", "sb2")], "events")

    @check("watch: from a list's resourceVersion only newer events, and a re-watch across a timeout misses nothing")
    def _():
        listed = custom.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)
        rv = listed["metadata"]["resourceVersion"]
        custom.patch_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, "sb1", {"metadata": {"labels": {"step": "1"}}}
        )
        seen, last = events(
            custom.list_namespaced_custom_object,
            GROUP,
            VERSION,
            NS,
            PLURAL,
            resource_version=rv,
            timeout_seconds=1,
        )
        expect([(t, n) for t, n, _ in seen], [("MODIFIED", "sb1")], "first watch")
        expect(last, seen[-1][2], "the Watch's resource_version")
        # Between the two watches: writes nobody is watching.
        custom.patch_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, "sb1", {"metadata": {"labels": {"step": "2"}}}
        )
        custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, sandbox("sb3"))
        custom.delete_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "sb3")
        again, _ = events(
            custom.list_namespaced_custom_object,
            GROUP,
            VERSION,
            NS,
            PLURAL,
            resource_version=last,
            timeout_seconds=1,
        )
        expect(
            [(t, n) for t, n, _ in again],
            [("MODIFIED", "sb1"), ("ADDED", "sb3"), ("DELETED", "sb3")],
            "re-watch",
        )

    @check("watch: a label-selected core watch from a resourceVersion")
    def _():
        listed = core.list_namespaced_config_map(NS)
        core.create_namespaced_config_map(
            NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm3", labels={"w": "y"}))
        )
        core.create_namespaced_config_map(
            NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm4"))
        )
        w = watch.Watch()
        seen = [
            (e["type"], e["object"].metadata.name, type(e["object"]).__name__)
            for e in w.stream(
                core.list_namespaced_config_map,
                NS,
                label_selector="w=y",
                resource_version=listed.metadata.resource_version,
                timeout_seconds=1,
            )
        ]
        expect(seen, [("ADDED", "cm3", "V1ConfigMap")], "events")

    @check("watch: bookmarks on request carry a resourceVersion")
    def _():
        w = watch.Watch()
        kinds = set()
        for e in w.stream(
            custom.list_namespaced_custom_object,
            GROUP,
            VERSION,
            NS,
            PLURAL,
            allow_watch_bookmarks=True,
            timeout_seconds=1,
        ):
            kinds.add(e["type"])
            if e["type"] == "BOOKMARK":
                assert e["raw_object"]["metadata"]["resourceVersion"], "bookmark without rv"
        assert "ADDED" in kinds, "no ADDED events: %r" % sorted(kinds)
        return "event types: %s" % ", ".join(sorted(kinds))

    @check("watch: from a resourceVersion older than the history, the client raises 410 Expired")
    def _():
        # The test starts kube-sim with a short history, which the writes above have overrun; the
        # server answers 200 and one ERROR event (§4.8), which Watch raises when timeout_seconds
        # turns its retry off.
        try:
            for _e in watch.Watch().stream(
                custom.list_namespaced_custom_object,
                GROUP,
                VERSION,
                NS,
                PLURAL,
                resource_version="1",
                timeout_seconds=1,
            ):
                pass
        except ApiException as error:
            expect(error.status, 410, "status")
            if not str(error.reason).startswith("Expired: too old resource version: 1 ("):
                raise AssertionError("reason %r" % error.reason)
            return "%d %s" % (error.status, error.reason)
        raise AssertionError("the watch ended without an error")

    # --- the dynamic client: discovery (§1) and the verbs through it ---------------------

    def dynamic_checks(cache_dir):
        dyn = None

        @check("dynamic: discovery resolves Sandbox (namespaced, with /status) and ConfigMap")
        def _():
            nonlocal dyn
            # The discovery cache goes to a folder of this run, not the shared temp folder.
            dyn = dynamic.DynamicClient(
                client.ApiClient(), cache_file=os.path.join(cache_dir, "discovery.json")
            )
            sandboxes = dyn.resources.get(api_version="%s/%s" % (GROUP, VERSION), kind="Sandbox")
            expect((sandboxes.name, sandboxes.namespaced), (PLURAL, True), "Sandbox resource")
            expect(sandboxes.subresources["status"].name, "sandboxes/status", "status subresource")
            config_maps = dyn.resources.get(api_version="v1", kind="ConfigMap")
            expect((config_maps.name, config_maps.namespaced), ("configmaps", True), "ConfigMap")

        @check("dynamic: create, get, JSON patch, merge patch and watch a Sandbox")
        def _():
            assert dyn is not None, "no dynamic client"
            sandboxes = dyn.resources.get(api_version="%s/%s" % (GROUP, VERSION), kind="Sandbox")
            created = sandboxes.create(body=sandbox("dyn1"), namespace=NS)
            expect(created.metadata.generation, 1, "generation")
            patched = sandboxes.patch(
                name="dyn1",
                namespace=NS,
                body=[{"op": "add", "path": "/metadata/labels/json", "value": "yes"}],
                content_type="application/json-patch+json",
            )
            expect(patched.metadata.labels.json, "yes", "label from the JSON patch")
            merged = sandboxes.patch(
                name="dyn1",
                namespace=NS,
                body={"metadata": {"labels": {"merge": "yes"}}},
                content_type="application/merge-patch+json",
            )
            expect(merged.metadata.labels.merge, "yes", "label from the merge patch")
            got = sandboxes.get(name="dyn1", namespace=NS)
            expect(got.metadata.resourceVersion, merged.metadata.resourceVersion, "rv")
            seen = [
                (e["type"], e["object"].metadata.name)
                for e in sandboxes.watch(
                    namespace=NS, field_selector="metadata.name=dyn1", timeout=1
                )
            ]
            expect(seen, [("ADDED", "dyn1")], "watch")
            sandboxes.delete(name="dyn1", namespace=NS)

    with tempfile.TemporaryDirectory(prefix="kube-sim-python-") as cache_dir:
        dynamic_checks(cache_dir)

    # --- delete (§4.9) ------------------------------------------------------------------------

    @check("delete: a uid precondition that does not match is 409 Conflict")
    def _():
        current = get_sb("sb2")
        detail = expect_refusal(
            lambda: custom.delete_namespaced_custom_object(
                GROUP,
                VERSION,
                NS,
                PLURAL,
                "sb2",
                body=client.V1DeleteOptions(
                    preconditions=client.V1Preconditions(uid="00000000-0000-4000-8000-000000000000")
                ),
            ),
            409,
            "Conflict",
            "precondition",
        )
        get_sb("sb2")  # still there
        expect(current["metadata"]["name"], "sb2", "name")
        return detail

    @check("delete: a resourceVersion precondition that does not match is 409 Conflict")
    def _():
        return expect_refusal(
            lambda: custom.delete_namespaced_custom_object(
                GROUP,
                VERSION,
                NS,
                PLURAL,
                "sb2",
                body=client.V1DeleteOptions(preconditions=client.V1Preconditions(resource_version="1")),
            ),
            409,
            "Conflict",
            "precondition",
        )

    @check("delete: matching preconditions delete with a Success Status")
    def _():
        current = get_sb("sb2")
        answer = custom.delete_namespaced_custom_object(
            GROUP,
            VERSION,
            NS,
            PLURAL,
            "sb2",
            body=client.V1DeleteOptions(
                preconditions=client.V1Preconditions(
                    uid=current["metadata"]["uid"],
                    resource_version=current["metadata"]["resourceVersion"],
                )
            ),
        )
        expect(answer.get("status"), "Success", "status")
        expect(answer.get("details", {}).get("uid"), current["metadata"]["uid"], "details.uid")
        expect_refusal(lambda: get_sb("sb2"), 404, "NotFound")

    @check("delete: with a finalizer sets deletionTimestamp and answers the object")
    def _():
        custom.patch_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, "sb1", {"metadata": {"finalizers": ["example.com/hold"]}}
        )
        before = get_sb("sb1")
        answer = custom.delete_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, "sb1", propagation_policy="Background"
        )
        assert answer["metadata"].get("deletionTimestamp"), "no deletionTimestamp"
        expect(answer["metadata"]["generation"], before["metadata"]["generation"] + 1, "generation")
        detail = expect_refusal(
            lambda: custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, sandbox("sb1")),
            409,
            "AlreadyExists",
            "object is being deleted: ",
        )
        custom.patch_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, "sb1", {"metadata": {"finalizers": None}}
        )
        expect_refusal(lambda: get_sb("sb1"), 404, "NotFound")
        return detail

    @check("delete: orphan_dependents=True orphans; with a propagation_policy too it is 422 Invalid")
    def _():
        custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, sandbox("sb5"))
        answer = custom.delete_namespaced_custom_object(
            GROUP, VERSION, NS, PLURAL, "sb5", orphan_dependents=True
        )
        expect(answer["metadata"].get("finalizers"), ["orphan"], "finalizers")
        custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, sandbox("sb6"))
        return expect_refusal(
            lambda: custom.delete_namespaced_custom_object(
                GROUP,
                VERSION,
                NS,
                PLURAL,
                "sb6",
                orphan_dependents=False,
                propagation_policy="Background",
            ),
            422,
            "Invalid",
            "orphanDependents and deletionPropagation cannot be both set",
        )

    @check("delete: delete_collection deletes only what the selector and namespace match")
    def _():
        other = "kube-public"
        for name in ("coll1", "coll2"):
            core.create_namespaced_config_map(
                NS,
                client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={"coll": "yes"})),
            )
            body = sandbox(name)
            body["metadata"]["namespace"] = other
            custom.create_namespaced_custom_object(GROUP, VERSION, other, PLURAL, body)
        custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, sandbox("kept"))
        core.delete_collection_namespaced_config_map(NS, label_selector="coll=yes")
        left = core.list_namespaced_config_map(NS, label_selector="coll").items
        expect(left, [], "ConfigMaps left")
        # CustomObjectsApi 22.6 offers no selector here: the collection is the namespace's.
        answer = custom.delete_collection_namespaced_custom_object(GROUP, VERSION, other, PLURAL)
        expect(answer.get("kind"), "SandboxList", "answer kind")
        names = sorted(i["metadata"]["name"] for i in answer["items"])
        expect(names, ["coll1", "coll2"], "deleted")
        left = custom.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)["items"]
        assert "kept" in [i["metadata"]["name"] for i in left], "kept was deleted"

    @check("delete: an invalid propagationPolicy is 422 Invalid")
    def _():
        custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, sandbox("sb4"))
        return expect_refusal(
            lambda: custom.delete_namespaced_custom_object(
                GROUP, VERSION, NS, PLURAL, "sb4", propagation_policy="Sideways"
            ),
            422,
            "Invalid",
        )

    return 0 if all(results) else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: conformance.py KUBECONFIG\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
