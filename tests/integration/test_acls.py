# SPDX-License-Identifier: Apache-2.0
"""ACLs managed through kafka-python's admin client and the raw wire.

Without authorizer.class.name the ACL APIs answer SECURITY_DISABLED. With
it, a PLAINTEXT client is User:ANONYMOUS: with no ACL it may not even manage
ACLs (CLUSTER_AUTHORIZATION_FAILED) nor join a group
(GROUP_AUTHORIZATION_FAILED); as a super user it creates topics and ACLs,
describes and deletes them (CreateAcls/DescribeAcls/DeleteAcls v1 from
kafka-python, flexible v3 on the raw wire; Debian's confluent-kafka 1.7 has
no ACL admin calls). After
a restart without super users the ACLs are back from LMDB and decide:
a consumer of an allowed group reads an allowed topic, a consumer of a
denied group (DENY wins over ALLOW) gets GROUP_AUTHORIZATION_FAILED,
Metadata hides the topic it may not describe, OffsetCommit on it is
TOPIC_AUTHORIZATION_FAILED, CreateTopics without CREATE is refused,
IncrementalAlterConfigs and DescribeConfigs need ALTER_CONFIGS and
DESCRIBE_CONFIGS on the topic or group,
OffsetForLeaderEpoch answers the topics it may describe (all of them for a
super user, CLUSTER_ACTION) before those it may not, and DescribeCluster's
cluster operations follow DESCRIBE on the cluster. Produce checks WRITE on
the transactional id only for transactional records; InitProducerId,
AddOffsetsToTxn, EndTxn and TxnOffsetCommit need WRITE on it,
DescribeTransactions and ListTransactions DESCRIBE; DescribeProducers
needs READ on the topic. AddPartitionsToTxn v4 from a broker with
CLUSTER_ACTION checks no transactional id or topic ACL.
"""

import time

from confluent_kafka import Consumer, KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaAdminClient, KafkaConsumer
from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType,
                         ACLResourcePatternType, ResourcePattern,
                         ResourcePatternFilter)
from kafka.admin import ResourceType as KPResourceType
from kafka.errors import GroupAuthorizationFailedError, NoError, SecurityDisabledError

import kafka_wire
from kcoord_harness import Kcoord, run

DEADLINE_S = 60
ANON = "User:ANONYMOUS"
AUTHZ = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer"}

GROUP_AUTHORIZATION_FAILED = 30
TOPIC_AUTHORIZATION_FAILED = 29
CLUSTER_AUTHORIZATION_FAILED = 31


def kp_admin(k):
    return KafkaAdminClient(bootstrap_servers=k.bootstrap, request_timeout_ms=30000)


def cf_admin(k):
    return AdminClient({"bootstrap.servers": k.bootstrap})


# Kafka's codes (kc_acl_codes.h): resource types, pattern types, operations, permissions.
RES_ANY, RES_TOPIC, RES_GROUP, RES_CLUSTER = 1, 2, 3, 4
PAT_ANY, PAT_MATCH, PAT_LITERAL, PAT_PREFIXED = 1, 2, 3, 4
OP_ANY, OP_ALL, OP_READ, OP_ALTER = 1, 2, 3, 7
PERM_ANY, PERM_DENY, PERM_ALLOW = 1, 2, 3
API_DESCRIBE_ACLS, API_CREATE_ACLS, API_DELETE_ACLS = 29, 30, 31


def describe_acls_v3(conn, rtype=RES_ANY, name=None, ptype=PAT_ANY):
    """Raw DescribeAcls v3 (flexible): returns (error_code, sorted bindings)."""
    w = kafka_wire.Writer()
    w.i8(rtype).compact_string(name).i8(ptype).compact_string(None).compact_string(None)
    w.i8(OP_ANY).i8(PERM_ANY).no_tags()
    corr = conn.send(API_DESCRIBE_ACLS, 3, w.getvalue(), flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr
    r.i32()
    err = r.i16()
    r.compact_string()
    out = []

    def acl(rr, res):
        out.append(res + (rr.compact_string(), rr.compact_string(), rr.i8(), rr.i8()))
        rr.skip_tags()

    def resource(rr):
        res = (rr.i8(), rr.compact_string())
        res = res + (rr.i8(),)
        rr.compact_array(lambda r3: acl(r3, res))
        rr.skip_tags()
    r.compact_array(resource)
    r.skip_tags()
    assert not r.remaining()
    return err, sorted(out)


def create_acls_v3(conn, bindings):
    """bindings: [(rtype, name, ptype, principal, host, op, perm)]; returns [(code, msg)]."""
    def one(ww, b):
        ww.i8(b[0]).compact_string(b[1]).i8(b[2]).compact_string(b[3]).compact_string(b[4])
        ww.i8(b[5]).i8(b[6]).no_tags()
    w = kafka_wire.Writer().compact_array(bindings, one).no_tags()
    corr = conn.send(API_CREATE_ACLS, 3, w.getvalue(), flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr
    r.i32()

    def result(rr):
        v = (rr.i16(), rr.compact_string())
        rr.skip_tags()
        return v
    out = r.compact_array(result)
    r.skip_tags()
    return out


def delete_acls_v3(conn, rtype, name, ptype):
    """One filter; returns (filter error, [matching (rtype, name, ptype, principal, host, op, perm)])."""
    w = kafka_wire.Writer()

    def flt(ww, _):
        ww.i8(rtype).compact_string(name).i8(ptype).compact_string(None).compact_string(None)
        ww.i8(OP_ANY).i8(PERM_ANY).no_tags()
    w.compact_array([0], flt).no_tags()
    corr = conn.send(API_DELETE_ACLS, 3, w.getvalue(), flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr
    r.i32()

    def match(rr):
        rr.i16()
        rr.compact_string()
        v = (rr.i8(), rr.compact_string(), rr.i8(), rr.compact_string(), rr.compact_string(),
             rr.i8(), rr.i8())
        rr.skip_tags()
        return v

    def result(rr):
        e = rr.i16()
        rr.compact_string()
        m = rr.compact_array(match)
        rr.skip_tags()
        return e, m
    (res,) = r.compact_array(result)
    r.skip_tags()
    return res


def all_bindings(k):
    with kafka_wire.Conn(k.port) as c:
        err, got = describe_acls_v3(c)
    assert err == 0, err
    return got


def transactional_batch(producer_id, epoch):
    """One record in a magic 2 batch with the transactional attribute set."""
    b = bytearray(kafka_wire.record_batch([b"t"], producer_id=producer_id, epoch=epoch,
                                          base_seq=0))
    b[22] |= 0x10
    b[17:21] = kafka_wire.crc32c(bytes(b[21:])).to_bytes(4, "big")
    return bytes(b)


def produce_error(conn, transactional_id, topic, records=b""):
    """Produce v7 of records (default empty) to partition 0; the partition's error code."""
    w = kafka_wire.Writer().string(transactional_id).i16(-1).i32(30000)
    w.array([topic], lambda ww, t: ww.string(t).array(
        [0], lambda w3, p: w3.i32(p).bytes_(records)))
    corr = conn.send(0, 7, w.getvalue())
    got, r = conn.recv()
    assert got == corr
    ((name, ((part, err, _, _, _),)),) = r.array(lambda rr: (rr.string(), rr.array(
        lambda r3: (r3.i32(), r3.i16(), r3.i64(), r3.i64(), r3.i64()))))
    assert name == topic and part == 0
    return err


def fetch_error(conn, replica_id, topic):
    """Fetch v4 of partition 0 from offset 0 without waiting; the partition's error code."""
    w = kafka_wire.Writer().i32(replica_id).i32(0).i32(0).i32(1 << 20).i8(0)
    w.array([topic], lambda ww, t: ww.string(t).array(
        [0], lambda w3, p: w3.i32(p).i64(0).i32(1 << 20)))
    corr = conn.send(1, 4, w.getvalue())
    got, r = conn.recv()
    assert got == corr
    r.i32()

    def part(rr):
        rr.i32()
        err = rr.i16()
        rr.i64()
        rr.i64()
        rr.array(lambda r3: (r3.i64(), r3.i64()))
        rr.bytes_()
        return err
    ((name, (err,)),) = r.array(lambda rr: (rr.string(), rr.array(part)))
    assert name == topic
    return err


def describe_producers(conn, topics):
    """Raw DescribeProducers v0 of partition 0 of each topic; returns
    [(topic, error_code, error_message, producer ids)]."""
    w = kafka_wire.Writer().compact_array(topics, lambda ww, t: ww.compact_string(t).compact_array(
        [0], lambda w3, p: w3.i32(p)).no_tags()).no_tags()
    corr = conn.send(61, 0, w.getvalue(), flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr
    r.i32()

    def producer(r3):
        pid = r3.i64()
        r3.i32(), r3.i32(), r3.i64(), r3.i32(), r3.i64()
        r3.skip_tags()
        return pid

    def part(rr):
        rr.i32()
        err, msg = rr.i16(), rr.compact_string()
        pids = rr.compact_array(producer)
        rr.skip_tags()
        return err, msg, pids

    def topic(rr):
        name = rr.compact_string()
        ((err, msg, pids),) = rr.compact_array(part)
        rr.skip_tags()
        return name, err, msg, pids
    return r.compact_array(topic)


def cluster_authorized_operations(conn):
    """Raw DescribeCluster v0 (flexible) asking for the cluster's authorized
    operations; returns (error_code, their bit set)."""
    corr = conn.send(60, 0, kafka_wire.Writer().boolean(True).no_tags().getvalue(),
                     flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr
    r.i32()
    err = r.i16()
    r.compact_string()
    r.compact_string()
    r.i32()

    def broker(rr):
        rr.i32()
        rr.compact_string()
        rr.i32()
        rr.compact_string()
        rr.skip_tags()
    r.compact_array(broker)
    ops = r.i32()
    r.skip_tags()
    return err, ops


def offset_for_leader_epoch(conn, topics):
    """Raw OffsetForLeaderEpoch v2 of partition 0 of each topic at epoch 0;
    returns [(topic, error_code, leader epoch, end offset)] in answer order."""
    w = kafka_wire.Writer().array(topics, lambda ww, t: ww.string(t).array(
        [0], lambda w3, p: w3.i32(p).i32(-1).i32(0)))
    corr = conn.send(23, 2, w.getvalue())
    got, r = conn.recv()
    assert got == corr
    r.i32()
    out = []
    for name, parts in r.array(lambda rr: (rr.string(), rr.array(
            lambda r3: (r3.i16(), r3.i32(), r3.i32(), r3.i64())))):
        ((err, part, epoch, end),) = parts
        assert part == 0
        out.append((name, err, epoch, end))
    return out


OP_CLUSTER_ACTION = 9
TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53


def flexible_call(conn, api, version, body):
    """A flexible request; the response reader after its throttle time."""
    corr = conn.send(api, version, body.getvalue(), flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr
    r.i32()
    return r


def transaction_api_errors(conn, tid, group):
    """The codes of the transaction APIs for tid (producer 1000, epoch 0)
    and group: InitProducerId v2, AddOffsetsToTxn v3, EndTxn v3,
    TxnOffsetCommit v3 (its partition's), DescribeTransactions v0 (the
    id's) and the ids ListTransactions v0 lists."""
    W = kafka_wire.Writer
    out = {}
    r = flexible_call(conn, 22, 2, W().compact_string(tid).i32(60000).no_tags())
    out["InitProducerId"] = r.i16()
    r = flexible_call(conn, 25, 3, W().compact_string(tid).i64(1000).i16(0)
                      .compact_string(group).no_tags())
    out["AddOffsetsToTxn"] = r.i16()
    r = flexible_call(conn, 26, 3, W().compact_string(tid).i64(1000).i16(0).boolean(True)
                      .no_tags())
    out["EndTxn"] = r.i16()
    body = W().compact_string(tid).compact_string(group).i64(1000).i16(0).i32(-1)
    body.compact_string("").compact_string(None).compact_array(
        [("open-a", 0)], lambda w, t: w.compact_string(t[0]).compact_array(
            [t[1]], lambda w2, q: w2.i32(q).i64(1).i32(-1).compact_string("").no_tags())
        .no_tags()).no_tags()
    r = flexible_call(conn, 28, 3, body)
    ((_, ((_, out["TxnOffsetCommit"]),)),) = r.compact_array(lambda rr: (
        rr.compact_string(), rr.compact_array(lambda r3: (r3.i32(), r3.i16(), r3.skip_tags())[:2]),
        rr.skip_tags())[:2])
    r = flexible_call(conn, 65, 0, W().compact_array([tid], lambda w, x: w.compact_string(x))
                      .no_tags())
    # TransactionStates: the id's ErrorCode comes first (the rest is not read).
    assert r.uvarint() == 2
    out["DescribeTransactions"] = r.i16()
    r = flexible_call(conn, 66, 0, W().compact_array([], None).compact_array([], None).no_tags())
    assert r.i16() == 0
    r.compact_array(lambda rr: rr.compact_string())
    out["ListTransactions"] = r.compact_array(lambda rr: (
        rr.compact_string(), rr.i64(), rr.compact_string(), rr.skip_tags())[0])
    return out


def add_partitions_v4(conn, transactions):
    """Raw AddPartitionsToTxn v4 (a broker's) of [(transactional id,
    verify_only, topic, [partitions])] at producer id 1000 epoch 0; returns
    (error_code, [(transactional id, [(topic, [(partition, error_code)])])])."""
    def txn(w, t):
        tid, verify, topic, parts = t
        w.compact_string(tid).i64(1000).i16(0).boolean(verify)
        w.compact_array([topic], lambda w2, name: w2.compact_string(name).compact_array(
            parts, lambda w3, q: w3.i32(q)).no_tags())
        w.no_tags()
    body = kafka_wire.Writer().compact_array(transactions, txn).no_tags()
    corr = conn.send(24, 4, body.getvalue(), flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr
    r.i32()
    err = r.i16()

    def part(rr):
        out = (rr.i32(), rr.i16())
        rr.skip_tags()
        return out

    def topic(rr):
        out = (rr.compact_string(), rr.compact_array(part))
        rr.skip_tags()
        return out

    def result(rr):
        out = (rr.compact_string(), rr.compact_array(topic))
        rr.skip_tags()
        return out
    return err, r.compact_array(result)


def phase_broker_add_partitions():
    """AddPartitionsToTxn v4+ comes from brokers: CLUSTER_ACTION on the
    cluster, then no ACL on the transactional id or the topics
    (KafkaApis.handleAddPartitionsToTxnRequest); VerifyOnly checks the
    partitions exist first."""
    with Kcoord("acls-broker", overrides=dict(AUTHZ, **{"super.users": ANON})) as k:
        with kafka_wire.Conn(k.port) as c:
            assert kafka_wire.create_topics(c, {"bt": 1})["topics"] == {"bt": (0, None)}
            res = create_acls_v3(c, [(RES_CLUSTER, "kafka-cluster", PAT_LITERAL, ANON, "*",
                                      OP_CLUSTER_ACTION, PERM_ALLOW)])
            assert res == [(0, None)], res
        k.stop()
        del k.overrides["super.users"]
        k.start()
        with kafka_wire.Conn(k.port) as c:
            # No WRITE on tx-b nor on bt: the coordinator answers (it has no tx-b).
            assert add_partitions_v4(c, [("tx-b", False, "bt", [0]),
                                         ("tx-c", True, "nope", [0])]) == (0, [
                ("tx-b", [("bt", [(0, 49)])]),   # INVALID_PRODUCER_ID_MAPPING
                ("tx-c", [("nope", [(0, 3)])])])  # UNKNOWN_TOPIC_OR_PARTITION


def phase_no_authorizer():
    with Kcoord("acls-off") as k:
        try:
            kp = kp_admin(k)
            kp.describe_acls(ACLFilter(ANON, "*", ACLOperation.ANY, ACLPermissionType.ANY,
                                       ResourcePatternFilter(KPResourceType.ANY, None,
                                                             ACLResourcePatternType.ANY)))
            raise AssertionError("DescribeAcls without an authorizer must fail")
        except SecurityDisabledError:
            pass
        kp.close()
        # Groups work as before: no authorizer, no check.
        with kafka_wire.Conn(k.port) as c:
            assert kafka_wire.join_group(c, "any-group")["error_code"] == 79  # MEMBER_ID_REQUIRED


def phase_closed(k):
    """Authorizer on, no ACL, no super user: everything is refused."""
    with kafka_wire.Conn(k.port) as c:
        res = create_acls_v3(c, [(RES_TOPIC, "t", PAT_LITERAL, ANON, "*", OP_READ, PERM_ALLOW)])
        assert res == [(CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.")], res
        assert describe_acls_v3(c)[0] == CLUSTER_AUTHORIZATION_FAILED
    with kafka_wire.Conn(k.port) as c:
        assert kafka_wire.join_group(c, "any-group")["error_code"] == GROUP_AUTHORIZATION_FAILED
        fc = kafka_wire.find_coordinator(c, "any-group")
        assert fc["error_code"] == GROUP_AUTHORIZATION_FAILED, fc
        res = kafka_wire.create_topics(c, {"nope": 1})
        assert res["topics"]["nope"][0] == TOPIC_AUTHORIZATION_FAILED, res
        # DescribeCluster needs nothing; its cluster operations need DESCRIBE.
        assert cluster_authorized_operations(c) == (0, 0)
        assert offset_for_leader_epoch(c, ["nope"]) == [("nope", TOPIC_AUTHORIZATION_FAILED,
                                                         -1, -1)]


def phase_super_user(k):
    """As a super user: topics, records, ACLs through both admin clients."""
    cf = cf_admin(k)
    for t in ("open-a", "secret"):
        cf.create_topics([NewTopic(t, num_partitions=1, replication_factor=1)],
                         operation_timeout=30)[t].result(timeout=DEADLINE_S)
    p = Producer({"bootstrap.servers": k.bootstrap, "acks": "all"})
    for i in range(5):
        p.produce("open-a", value=b"v%d" % i)
    assert p.flush(DEADLINE_S) == 0

    with kafka_wire.Conn(k.port) as c:
        assert cluster_authorized_operations(c) == (0, 8096)  # every cluster operation
        # A super user may CLUSTER_ACTION: every topic is answered.
        assert offset_for_leader_epoch(c, ["secret", "open-a"]) == [
            ("secret", 0, 0, 0), ("open-a", 0, 0, 5)]

    kp = kp_admin(k)
    kp_acls = [
        ACL(ANON, "*", ACLOperation.ALTER, ACLPermissionType.ALLOW,
            ResourcePattern(KPResourceType.CLUSTER, "kafka-cluster",
                            ACLResourcePatternType.LITERAL)),
        ACL(ANON, "*", ACLOperation.READ, ACLPermissionType.ALLOW,
            ResourcePattern(KPResourceType.GROUP, "to-delete", ACLResourcePatternType.LITERAL)),
    ]
    result = kp.create_acls(kp_acls)
    assert not result["failed"], result
    assert len(result["succeeded"]) == 2, result

    # Flexible v3 on the raw wire, as librdkafka sends them.
    with kafka_wire.Conn(k.port) as c:
        res = create_acls_v3(c, [
            (RES_TOPIC, "open-", PAT_PREFIXED, "User:*", "*", OP_READ, PERM_ALLOW),
            (RES_GROUP, "good-group", PAT_LITERAL, ANON, "*", OP_READ, PERM_ALLOW),
            (RES_GROUP, "bad-group", PAT_LITERAL, ANON, "*", OP_ALL, PERM_ALLOW),
            (RES_GROUP, "bad-", PAT_PREFIXED, ANON, "127.0.0.1", OP_READ, PERM_DENY),
            # Invalid on its own (INVALID_REQUEST); the rest of the request is not.
            (RES_CLUSTER, "not-the-cluster", PAT_LITERAL, ANON, "*", OP_ALTER, PERM_ALLOW),
            (RES_GROUP, "g", PAT_LITERAL, "no-colon", "*", OP_READ, PERM_ALLOW),
        ])
        assert [code for code, _ in res] == [0, 0, 0, 0, 42, 42], res
        # MATCH: every pattern that applies to the group "bad-group".
        err, got = describe_acls_v3(c, RES_GROUP, "bad-group", PAT_MATCH)
        assert err == 0 and sorted(b[1] for b in got) == ["bad-", "bad-group"], got
        err, got = describe_acls_v3(c)
        assert err == 0 and len(got) == 6, got
        # A binding too long to be an LMDB key is refused, not kept in memory only.
        res = create_acls_v3(c, [(RES_TOPIC, "x" * 600, PAT_LITERAL, ANON, "*", OP_READ,
                                  PERM_ALLOW)])
        assert res[0][0] == 42, res
        assert len(describe_acls_v3(c)[1]) == 6

    # kafka-python sees the same six (DescribeAcls v1).
    acls, err = kp.describe_acls(ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                           ResourcePatternFilter(KPResourceType.ANY, None,
                                                                 ACLResourcePatternType.ANY)))
    assert err is NoError and len(acls) == 6, acls

    # DeleteAcls (kafka-python, v1): the filter matches one binding, which is gone after.
    res = kp.delete_acls([ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                    ResourcePatternFilter(KPResourceType.GROUP, "to-delete",
                                                          ACLResourcePatternType.LITERAL))])
    (flt, matches, error), = res
    assert error is NoError, error
    assert len(matches) == 1 and matches[0][0].resource_pattern.resource_name == "to-delete", matches
    assert len(all_bindings(k)) == 5
    # DeleteAcls v3 with a filter that matches nothing.
    with kafka_wire.Conn(k.port) as c:
        assert delete_acls_v3(c, RES_TOPIC, "none", PAT_LITERAL) == (0, [])
    kp.close()
    return all_bindings(k)


def consume(k, group, want, deadline=DEADLINE_S):
    c = Consumer({"bootstrap.servers": k.bootstrap, "group.id": group,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False,
                  "session.timeout.ms": 6000})
    c.subscribe(["open-a"])
    got, errors = [], []
    end = time.monotonic() + deadline
    while time.monotonic() < end and len(got) < want and not errors:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            errors.append(m.error())
            continue
        got.append(m.value())
    if got:
        c.commit(asynchronous=False)
    c.close()
    return got, errors


def phase_acls_decide(k, expected):
    # Replayed from LMDB; ANONYMOUS may describe them through ALTER on the cluster.
    assert all_bindings(k) == expected

    got, errors = consume(k, "good-group", 5)
    assert not errors, errors
    assert sorted(got) == [b"v%d" % i for i in range(5)], got

    got, errors = consume(k, "bad-group", 1)
    assert not got, got
    assert errors and errors[0].code() == KafkaError.GROUP_AUTHORIZATION_FAILED, errors

    kc = KafkaConsumer("open-a", bootstrap_servers=k.bootstrap, group_id="bad-group",
                       auto_offset_reset="earliest")
    seen = None
    end = time.monotonic() + DEADLINE_S
    while seen is None and time.monotonic() < end:
        try:
            recs = kc.poll(timeout_ms=500)
            assert not recs, recs
        except GroupAuthorizationFailedError as e:
            seen = e
    kc.close()
    assert seen is not None, "kafka-python never saw GroupAuthorizationFailedError"

    with kafka_wire.Conn(k.port) as c:
        md = kafka_wire.metadata_v1(c)
        assert sorted(md["topics"]) == ["open-a"], md["topics"]
        md = kafka_wire.metadata_v1(c, ["secret", "open-a"])
        assert md["topics"]["secret"]["error_code"] == TOPIC_AUTHORIZATION_FAILED, md
        assert md["topics"]["open-a"]["error_code"] == 0, md
        res = kafka_wire.offset_commit(c, "good-group", {"secret": {0: (1, "")},
                                                         "open-a": {0: (2, "")}})
        assert res["errors"] == {("secret", 0): TOPIC_AUTHORIZATION_FAILED, ("open-a", 0): 0}, res
        f = kafka_wire.offset_fetch(c, "good-group", {"secret": [0], "open-a": [0]})
        assert f["offsets"][("secret", 0)][3] == TOPIC_AUTHORIZATION_FAILED, f
        assert f["offsets"][("open-a", 0)][0] == 2, f
        d = kafka_wire.describe_groups(c, ["bad-group", "no-acl-group"])
        codes = {g["group_id"]: g["error_code"] for g in d["groups"]}
        assert codes["no-acl-group"] == GROUP_AUTHORIZATION_FAILED, codes
        assert codes["bad-group"] == 0, codes  # DENY READ does not deny DESCRIBE
        res = kafka_wire.create_topics(c, {"new-topic": 1})
        assert res["topics"]["new-topic"][0] == TOPIC_AUTHORIZATION_FAILED, res
        # Authorized operations follow the bindings: ALLOW ALL on bad-group
        # with DENY READ on the prefix "bad-" leaves DELETE, DESCRIBE,
        # DESCRIBE_CONFIGS and ALTER_CONFIGS of the group's operations.
        body = kafka_wire.Writer().array(["bad-group"], lambda w, g: w.string(g)).boolean(True)
        corr = c.send(kafka_wire.API_DESCRIBE_GROUPS, 4, body.getvalue())
        got, r = c.recv()
        assert got == corr
        (g,) = kafka_wire.decode_describe_groups_v4(r)["groups"]
        assert g["authorized_operations"] == (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11), g
        # Configs: ALTER_CONFIGS on the topic or group (READ implies neither
        # it nor DESCRIBE_CONFIGS), ALTER_CONFIGS on the cluster for the
        # root logger (ALTER does not imply it).
        res = kafka_wire.incremental_alter_configs(c, [
            (kafka_wire.CONFIG_RESOURCE_TOPIC, "open-a", [("retention.ms", 0, "1000")]),
            (kafka_wire.CONFIG_RESOURCE_GROUP, "good-group", [("consumer.session.timeout.ms", 0, "50000")]),
            (kafka_wire.CONFIG_RESOURCE_GROUP, "bad-group", [("consumer.session.timeout.ms", 0, "50000")]),
            (8, "1", [("root", 0, "INFO")])], validate_only=True)
        assert [r["error_code"] for r in res] == [TOPIC_AUTHORIZATION_FAILED,
                                                  GROUP_AUTHORIZATION_FAILED, 0,
                                                  CLUSTER_AUTHORIZATION_FAILED], res
        code, _ = kafka_wire.describe_configs(c, kafka_wire.CONFIG_RESOURCE_GROUP, "good-group")
        assert code == GROUP_AUTHORIZATION_FAILED, code
        code, cfgs = kafka_wire.describe_configs(c, kafka_wire.CONFIG_RESOURCE_GROUP, "bad-group",
                                                 ["consumer.session.timeout.ms"])
        # The harness gives kcoord.conf, which sets every property (STATIC_BROKER_CONFIG).
        assert code == 0 and cfgs["consumer.session.timeout.ms"] == ("45000", 4), (code, cfgs)
        # Fetch: READ on the topic for a consumer, CLUSTER_ACTION for a follower.
        # Produce: WRITE on the topic, and first WRITE on the transactional id
        # for transactional records only (a transactional id alone is not
        # checked; transactional records without one are refused).
        assert produce_error(c, None, "secret") == TOPIC_AUTHORIZATION_FAILED
        assert produce_error(c, "tx-1", "open-a") == TOPIC_AUTHORIZATION_FAILED
        txn_records = transactional_batch(1000, 0)
        for tid in ("tx-1", None):
            # TRANSACTIONAL_ID_AUTHORIZATION_FAILED
            assert produce_error(c, tid, "open-a", txn_records) == 53, tid
        # The transaction APIs: WRITE on the transactional id (DESCRIBE to
        # describe or list it) before anything else, as KafkaApis checks.
        denied = TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        got = transaction_api_errors(c, "tx-1", "good-group")
        assert got == {
            "InitProducerId": denied, "AddOffsetsToTxn": denied, "EndTxn": denied,
            "TxnOffsetCommit": denied, "DescribeTransactions": denied,
            "ListTransactions": []}, got
        # DescribeProducers: READ on the topic.
        assert describe_producers(c, ["open-a", "secret"]) == [
            ("open-a", 0, None, []),
            ("secret", TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed.", [])]
        # An idempotent producer id needs IDEMPOTENT_WRITE or WRITE on some topic.
        corr = c.send(22, 1, kafka_wire.Writer().string(None).i32(60000).getvalue())
        got, r = c.recv()
        assert got == corr
        r.i32()
        assert r.i16() == CLUSTER_AUTHORIZATION_FAILED
        for replica_id, topic, want in ((-1, "open-a", 0), (-1, "secret", TOPIC_AUTHORIZATION_FAILED),
                                        (1, "open-a", TOPIC_AUTHORIZATION_FAILED)):
            assert fetch_error(c, replica_id, topic) == want, (replica_id, topic)
        # ALTER on the cluster implies DESCRIBE: the cluster's operations are
        # ALTER and DESCRIBE.
        assert cluster_authorized_operations(c) == (0, (1 << 7) | (1 << 8))
        # OffsetForLeaderEpoch: DESCRIBE on each topic (READ on "open-" implies
        # it); the allowed topics come first, then the others in request
        # order. Epoch 0 of open-a ended at 5 (restarts moved it on since).
        assert offset_for_leader_epoch(c, ["secret", "open-a", "missing"]) == [
            ("open-a", 0, 0, 5), ("secret", TOPIC_AUTHORIZATION_FAILED, -1, -1),
            ("missing", TOPIC_AUTHORIZATION_FAILED, -1, -1)]

    # ListGroups: no DESCRIBE on the cluster, so only the groups ANONYMOUS may describe.
    kp = kp_admin(k)
    groups = sorted(g[0] for g in kp.list_consumer_groups())
    kp.close()
    assert groups == ["good-group"], groups


def main():
    phase_no_authorizer()
    phase_broker_add_partitions()
    with Kcoord("acls", overrides=AUTHZ) as k:
        phase_closed(k)
        k.stop()
        k.overrides["super.users"] = ANON
        k.start()
        expected = phase_super_user(k)
        k.stop()
        del k.overrides["super.users"]
        k.start()
        phase_acls_decide(k, expected)


if __name__ == "__main__":
    run(main)
