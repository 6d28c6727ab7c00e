# SPDX-License-Identifier: Apache-2.0
"""Real clients over SSL / SASL for the security tests: each round trip
produces messages to a fresh topic, consumes them in a consumer group,
commits, and checks the group's committed offset through the same client."""

import time
import uuid

from kcoord_harness import wait_for

DEADLINE_S = 120


def kafka_python_roundtrip(bootstrap, n=20, **security):
    """kafka-python: KafkaProducer then a KafkaConsumer in a group; security
    holds kafka-python's keyword arguments (security_protocol, ssl_cafile,
    sasl_mechanism, sasl_plain_username, sasl_plain_password, ...)."""
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    topic = "kp-sec-" + uuid.uuid4().hex[:8]
    group = topic + "-group"
    common = dict(bootstrap_servers=bootstrap, request_timeout_ms=30000,
                  api_version_auto_timeout_ms=30000, **security)
    p = KafkaProducer(acks=1, **common)
    try:
        for i in range(n):
            p.send(topic, key=b"k%d" % i, value=b"v%d" % i).get(timeout=60)
        p.flush(timeout=60)
    finally:
        p.close(timeout=10)
    c = KafkaConsumer(group_id=group, enable_auto_commit=False, auto_offset_reset="earliest",
                      session_timeout_ms=10000, heartbeat_interval_ms=500, **common)
    try:
        c.subscribe([topic])
        got = []
        deadline = time.monotonic() + DEADLINE_S
        while len(got) < n and time.monotonic() < deadline:
            for recs in c.poll(timeout_ms=500).values():
                got.extend(r.value for r in recs)
        assert sorted(got) == sorted(b"v%d" % i for i in range(n)), got
        c.commit()
        assert c.committed(TopicPartition(topic, 0)) == n
    finally:
        c.close(autocommit=False)
    return topic


def confluent_roundtrip(bootstrap, conf, n=20):
    """confluent-kafka (librdkafka): Producer then a Consumer in a group;
    conf holds librdkafka's security properties."""
    from confluent_kafka import Consumer, Producer, TopicPartition
    topic = "ck-sec-" + uuid.uuid4().hex[:8]
    group = topic + "-group"
    base = {"bootstrap.servers": bootstrap, "socket.timeout.ms": 30000}
    base.update(conf)
    p = Producer(dict(base, **{"acks": "1"}))
    delivered = []
    for i in range(n):
        p.produce(topic, key=b"k%d" % i, value=b"v%d" % i,
                  on_delivery=lambda err, msg: delivered.append(err))
    left = p.flush(60)
    assert left == 0 and len(delivered) == n and not any(delivered), delivered
    c = Consumer(dict(base, **{"group.id": group, "auto.offset.reset": "earliest",
                               "enable.auto.commit": False, "session.timeout.ms": 10000,
                               "heartbeat.interval.ms": 500}))
    try:
        c.subscribe([topic])
        got = []
        deadline = time.monotonic() + DEADLINE_S
        while len(got) < n and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            assert m.error() is None, m.error()
            got.append(m.value())
        assert sorted(got) == sorted(b"v%d" % i for i in range(n)), got
        c.commit(asynchronous=False)
        committed = c.committed([TopicPartition(topic, 0)], timeout=30)
        assert committed[0].offset == n, committed
    finally:
        c.close()
    return topic


def confluent_auth_error(bootstrap, conf, timeout=60):
    """The authentication error librdkafka reports (through its error
    callback) when its login is refused."""
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient
    errors = []
    base = {"bootstrap.servers": bootstrap, "error_cb": errors.append}
    base.update(conf)
    a = AdminClient(base)
    try:
        a.list_topics(timeout=10)
    except KafkaException:
        pass  # the metadata request fails; the reason comes through error_cb

    def auth_error():
        a.poll(0.2)
        return next((e for e in errors if "Authentication" in str(e)), None)
    return wait_for(auth_error, timeout, "an authentication error from librdkafka",
                    state=lambda: [str(e) for e in errors])
