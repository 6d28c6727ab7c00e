# SPDX-License-Identifier: Apache-2.0
"""Broker APIs that clients call around a group: ApiVersions and
FindCoordinator."""

from conformance import scenario
from h_txn import COORDINATOR_LOADING, find_body, wait_transaction_coordinator

SOFTWARE = {"ClientSoftwareName": "kcoord-conformance", "ClientSoftwareVersion": "1.0"}

CLUSTER_ID = "a2Nvb3JkLWNsdXN0ZXItMQ"  # both brokers run with this cluster id and node 1


def api_versions_body(version, **kw):
    body = dict(SOFTWARE) if version >= 3 else {}
    body.update(kw)
    return body


# ---------------------------------------------------------------- ApiVersions

@scenario("broker.api_versions.ranges",
          "ApiVersions at every version: error code, throttle time, the version range of "
          "every API both brokers serve, and which APIs only one of them serves",
          api="ApiVersions")
def _(ctx):
    c = ctx.client()
    r = c.call("ApiVersions", ctx.version, api_versions_body(ctx.version), record=False)
    ctx.note("ErrorCode", r["ErrorCode"])
    ctx.note("ThrottleTimeMs", r.get("ThrottleTimeMs"))
    served = {}
    for k in r["ApiKeys"]:
        served[ctx.specs.api_name(k["ApiKey"])] = {"MinVersion": k["MinVersion"],
                                                   "MaxVersion": k["MaxVersion"]}
    ctx.note("ApiKeys in ascending key order",
             [k["ApiKey"] for k in r["ApiKeys"]] == sorted(k["ApiKey"] for k in r["ApiKeys"]))
    ctx.note("ApiKeys without duplicates",
             len({k["ApiKey"] for k in r["ApiKeys"]}) == len(r["ApiKeys"]))
    both = set(ctx.ranges)
    ctx.note("ranges of the APIs both brokers serve",
             {name: served[name] for name in sorted(both) if name in served})
    ctx.note("APIs only this broker serves",
             {name: served[name] for name in sorted(served) if name not in both})


@scenario("broker.api_versions.features",
          "ApiVersions v3+: SupportedFeatures (features of min 0 left out before v4), "
          "FinalizedFeatures, whether FinalizedFeaturesEpoch is set, ZkMigrationReady",
          api="ApiVersions", versions=(3, None))
def _(ctx):
    c = ctx.client()
    r = c.call("ApiVersions", ctx.version, api_versions_body(ctx.version), record=False)
    # Keyed by name: the order of a feature collection carries no meaning.
    ctx.note("SupportedFeatures", {f["Name"]: {"MinVersion": f["MinVersion"],
                                               "MaxVersion": f["MaxVersion"]}
                                   for f in r["SupportedFeatures"]})
    ctx.note("FinalizedFeatures", {f["Name"]: {"MinVersionLevel": f["MinVersionLevel"],
                                               "MaxVersionLevel": f["MaxVersionLevel"]}
                                   for f in r["FinalizedFeatures"]})
    ctx.note("SupportedFeatures without duplicates",
             len({f["Name"] for f in r["SupportedFeatures"]}) == len(r["SupportedFeatures"]))
    ctx.note("FinalizedFeaturesEpoch >= 0", r["FinalizedFeaturesEpoch"] >= 0)
    ctx.note("ZkMigrationReady", r["ZkMigrationReady"])
    ctx.note("unknown tagged fields", r.get("_unknown_tags"))


@scenario("broker.api_versions.unsupported_version",
          "ApiVersions newer than both brokers serve (v6, v127): a v0 answer with "
          "UNSUPPORTED_VERSION and only ApiVersions' own range; the connection stays usable")
def _(ctx):
    c = ctx.client()
    lo, hi = ctx.specs.valid_versions("ApiVersions")
    for v in (hi + 1, 127):
        h = c.send("ApiVersions", v, dict(SOFTWARE), record=False)
        # The broker answers a version it does not know with a v0 body.
        r = c.wait((h[0], "ApiVersions", 0, None))
        ctx.note("ApiVersions v%d answered at v0" % v, r)
    r = c.call("ApiVersions", 3, dict(SOFTWARE), record=False)
    ctx.note("a v3 request afterwards: ErrorCode", r["ErrorCode"])


@scenario("broker.api_versions.invalid_software",
          "ApiVersions v3+ with a client software name or version outside Kafka's pattern "
          "(empty, a leading dot, a space, a trailing dash): INVALID_REQUEST and no ApiKeys",
          api="ApiVersions", versions=(3, None))
def _(ctx):
    c = ctx.client()
    for name, ver in (("", "1.0"), ("kcoord", ""), (".kcoord", "1"), ("kc oord", "1"),
                      ("kcoord", "1.0-"), ("kcoord_x", "1"), ("kcoord", "1+2")):
        c.call("ApiVersions", ctx.version,
               api_versions_body(ctx.version, ClientSoftwareName=name, ClientSoftwareVersion=ver))
    for name, ver in (("k", "1"), ("kcoord-x.y", "1.0.0-rc1"), ("A9", "Z")):
        r = c.call("ApiVersions", ctx.version,
                   api_versions_body(ctx.version, ClientSoftwareName=name,
                                     ClientSoftwareVersion=ver), record=False)
        ctx.note("%r %r: ErrorCode" % (name, ver), r["ErrorCode"])


@scenario("broker.api_versions.cluster_check",
          "ApiVersions v5 (KIP-1242): the right cluster id and node id pass, another cluster "
          "or node gets REBOOTSTRAP_REQUIRED, a cluster id without a node id (or the reverse) "
          "INVALID_REQUEST", api="ApiVersions", versions=(5, None))
def _(ctx):
    c = ctx.client()
    r = c.call("ApiVersions", ctx.version,
               api_versions_body(ctx.version, ClusterId=CLUSTER_ID, NodeId=1), record=False)
    ctx.note("right cluster and node: ErrorCode, has ApiKeys",
             [r["ErrorCode"], len(r["ApiKeys"]) > 0])
    c.call("ApiVersions", ctx.version,
           api_versions_body(ctx.version, ClusterId="b2Nvb3JkLWNsdXN0ZXItMQ", NodeId=1))
    c.call("ApiVersions", ctx.version, api_versions_body(ctx.version, ClusterId=CLUSTER_ID,
                                                         NodeId=2))
    c.call("ApiVersions", ctx.version, api_versions_body(ctx.version, ClusterId=CLUSTER_ID))
    c.call("ApiVersions", ctx.version, api_versions_body(ctx.version, NodeId=1))
    r = c.call("ApiVersions", ctx.version, api_versions_body(ctx.version), record=False)
    ctx.note("no cluster id, no node id: ErrorCode", r["ErrorCode"])


# ---------------------------------------------------------------- FindCoordinator

@scenario("broker.find_coordinator.group",
          "FindCoordinator for a group key at every version: the node, host and port, "
          "batched keys from v4", api="FindCoordinator")
def _(ctx):
    c = ctx.client()
    if ctx.version >= 4:
        c.call("FindCoordinator", ctx.version,
               {"KeyType": 0, "CoordinatorKeys": [ctx.group("a"), ctx.group("b")]})
    else:
        c.call("FindCoordinator", ctx.version, {"Key": ctx.group(), "KeyType": 0})


@scenario("broker.find_coordinator.group_keys",
          "FindCoordinator for unusual group keys at every version: the empty key, a long "
          "key, non-ASCII, the same key twice in one batch (v4+), no keys at all (v4+)",
          api="FindCoordinator")
def _(ctx):
    c = ctx.client()
    keys = ["", "x" * 300, "gr\u00fcppe-\u65e5\u672c", ctx.group("same")]
    if ctx.version >= 4:
        c.call("FindCoordinator", ctx.version, find_body(ctx.version, 0, keys))
        c.call("FindCoordinator", ctx.version,
               find_body(ctx.version, 0, [ctx.group("same"), ctx.group("same")]))
        c.call("FindCoordinator", ctx.version, find_body(ctx.version, 0, []))
    else:
        for k in keys:
            c.call("FindCoordinator", ctx.version, find_body(ctx.version, 0, [k]))


@scenario("broker.find_coordinator.invalid_key_type",
          "FindCoordinator v1+ with key types that name no coordinator (3, 127, -1): the "
          "error and the no-node answer; SHARE (2) before v6 is INVALID_REQUEST",
          api="FindCoordinator", versions=(1, None))
def _(ctx):
    c = ctx.client()
    types = [3, 127, -1]
    if ctx.version < 6:
        types.insert(0, 2)
    for kt in types:
        c.call("FindCoordinator", ctx.version,
               find_body(ctx.version, kt, [ctx.group("a"), ctx.group("b")][:1 if ctx.version < 4 else 2]))


@scenario("broker.find_coordinator.share_key_format",
          "FindCoordinator v6 for SHARE keys that are not groupId:topicId:partition: "
          "INVALID_REQUEST per key", api="FindCoordinator", versions=(6, None))
def _(ctx):
    c = ctx.client()
    tid = "AAAAAAAAAAAAAAAAAAAAAA"
    c.call("FindCoordinator", ctx.version, find_body(ctx.version, 2, [
        "", ctx.group(), "%s:%s" % (ctx.group(), tid), "%s:%s:x" % (ctx.group(), tid),
        "%s:short:0" % ctx.group(), ":%s:0" % tid, "%s:%s:" % (ctx.group(), tid)]))


@scenario("broker.find_coordinator.transaction",
          "FindCoordinator for TRANSACTION keys at every version once the transaction "
          "coordinator is up: the node, host and port", api="FindCoordinator")
def _(ctx):
    c = ctx.client()
    tid = ctx.group("txn")
    wait_transaction_coordinator(ctx, c, tid, ctx.version)
    keys = [tid, ctx.group("txn2"), ""] if ctx.version >= 4 else [tid]
    c.call("FindCoordinator", ctx.version, find_body(ctx.version, 1, keys))
    if ctx.version < 4:
        c.call("FindCoordinator", ctx.version, find_body(ctx.version, 1, [""]))


@scenario("broker.transactions.init_producer_id",
          "InitProducerId at every version for a transactional id, at its coordinator: a "
          "producer id at epoch 0, then the same id at epoch 1 when initialised again",
          api="InitProducerId")
def _(ctx):
    c = ctx.client()
    tid = ctx.group("txn")
    wait_transaction_coordinator(ctx, c, tid)
    body = {"TransactionalId": tid, "TransactionTimeoutMs": 60000}
    if ctx.version >= 3:
        body.update(ProducerId=-1, ProducerEpoch=-1)

    def init():
        r = c.call("InitProducerId", ctx.version, body, record=False)
        return None if r["ErrorCode"] in COORDINATOR_LOADING else r
    first = ctx.wait_until(init, "the transactional id's coordinator partition")
    ctx.note("first: ErrorCode, ProducerId >= 0, ProducerEpoch",
             [first["ErrorCode"], first["ProducerId"] >= 0, first["ProducerEpoch"]])
    again = c.call("InitProducerId", ctx.version, body, record=False)
    ctx.note("again: ErrorCode, same ProducerId, ProducerEpoch",
             [again["ErrorCode"], again["ProducerId"] == first["ProducerId"],
              again["ProducerEpoch"]])


@scenario("broker.unsupported_version.closes",
          "A request one version newer than both brokers serve (Metadata, FindCoordinator, "
          "CreateTopics, ListOffsets, Fetch): the connection is closed without an answer, "
          "unlike ApiVersions")
def _(ctx):
    bodies = {"Metadata": {"Topics": []}, "FindCoordinator": {"KeyType": 0,
                                                             "CoordinatorKeys": ["g"]},
              "CreateTopics": {"Topics": []}, "ListOffsets": {"Topics": []},
              "Fetch": {"Topics": []}}
    for api, body in bodies.items():
        lo, hi = ctx.specs.valid_versions(api)
        c = ctx.client(api)
        h = c.send(api, hi + 1, body, record=False)
        ctx.note("%s v%d answered" % (api, hi + 1),
                 c.wait((h[0], api, hi, None), timeout=30) is not None)


@scenario("broker.find_coordinator.share_key",
          "FindCoordinator v6 for well-formed SHARE keys (groupId:topicId:partition) once the "
          "share coordinator is up: the node, host and port", api="FindCoordinator",
          versions=(6, None))
def _(ctx):
    c = ctx.client()
    key = "%s:%s:0" % (ctx.group(), "AAAAAAAAAAAAAAAAAAAAAA")

    def up():
        r = c.call("FindCoordinator", ctx.version, find_body(ctx.version, 2, [key]),
                   record=False)
        return r["Coordinators"][0]["ErrorCode"] == 0
    # Kafka creates its share-group state topic on the first SHARE lookup.
    ctx.wait_until(up, "the share coordinator")
    c.call("FindCoordinator", ctx.version, find_body(ctx.version, 2, [
        key, "%s:%s:7" % (ctx.group("b"), "BBBBBBBBBBBBBBBBBBBBBB")]))
