# SPDX-License-Identifier: Apache-2.0
"""StreamsGroupTopologyDescriptionUpdate (API 93, KIP-1331) on the wire,
against the kcoord binary:

- without a store, ApiVersions still advertises API 93 v0 (as Kafka does)
  and every push is answered UNSUPPORTED_VERSION with Kafka's message;
- with the test store loaded from its shared object (path and settings
  given as properties), requests are validated as Kafka does (empty member
  id, empty group id) and a push for a group that is not a streams group is
  GROUP_ID_NOT_FOUND; the store is never called;
- a store that cannot be loaded stops kcoord at start-up, naming the property.
"""

import os
import subprocess

import kafka_wire as kw
from kcoord_harness import Kcoord, run

API_UPDATE = 93
INVALID_REQUEST = 42
GROUP_ID_NOT_FOUND = 69


def push_body(group, member, epoch):
    w = kw.Writer().compact_string(group).compact_string(member).i32(epoch)
    # TopologyDescription: one subtopology with one source node, no global stores.
    w.uvarint(2)                                   # Subtopologies: 1
    w.compact_string("0")                          #   SubtopologyId
    w.uvarint(2)                                   #   Nodes: 1
    w.compact_string("KSTREAM-SOURCE-0000000000")  #     Name
    w.i8(1)                                        #     NodeType: source
    w.uvarint(2).compact_string("input")           #     SourceTopics
    w.uvarint(0)                                   #     SinkTopic: null
    w.uvarint(1)                                   #     Stores: none
    w.uvarint(1)                                   #     Successors: none
    w.no_tags()                                    #     (node tags)
    w.no_tags()                                    #   (subtopology tags)
    w.uvarint(1)                                   # GlobalStores: none
    w.no_tags()                                    # (description tags)
    w.no_tags()                                    # (request tags)
    return w.getvalue()


def push(conn, group, member, epoch=1):
    corr = conn.send(API_UPDATE, 0, push_body(group, member, epoch), flexible=True)
    got, r = conn.recv(flexible_header=True)
    assert got == corr, (got, corr)
    r.i32()  # ThrottleTimeMs
    code = r.i16()
    message = r.compact_string()
    r.skip_tags()
    assert r.remaining() == 0, r.remaining()
    return code, message


def main():
    with Kcoord("tdesc-off") as k:
        with kw.Conn(k.port) as c:
            av = kw.api_versions(c, 3)
            assert av["api_keys"].get(API_UPDATE) == (0, 0), av["api_keys"].get(API_UPDATE)
            code, msg = push(c, "app", "m1")
            assert code == kw.UNSUPPORTED_VERSION, code
            assert msg == ("The broker has no streams group topology description plugin "
                           "configured."), msg

    plugin = os.environ["KC_TEST_TOPOLOGY_STORE"]
    overrides = {
        "group.streams.topology.description.plugin": plugin,
        "group.streams.topology.description.plugin.config": "set=exit-before",
    }
    with Kcoord("tdesc-on", overrides=overrides) as k:
        with kw.Conn(k.port) as c:
            assert push(c, "app", "") == (INVALID_REQUEST, "MemberId can't be empty.")
            assert push(c, "", "m1") == (INVALID_REQUEST, "GroupId can't be empty.")
            # Not a streams group (none exist yet): answered before any store call,
            # which here would have killed kcoord.
            assert push(c, "app", "m1") == (GROUP_ID_NOT_FOUND, "Group app not found.")
            assert push(c, "app", "m1") == (GROUP_ID_NOT_FOUND, "Group app not found.")
            store_dir = os.path.join(k.data_dir, "test-store")
            assert os.path.isdir(store_dir), "the test store did not start"
            assert not os.path.exists(os.path.join(store_dir, "calls.log"))

    probe = Kcoord("tdesc-bad", overrides={
        "group.streams.topology.description.plugin": "/nonexistent/store.so"})
    try:
        p = subprocess.run(probe.command(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60, env={"PATH": "/usr/bin:/bin"})
        err = p.stderr.decode("utf-8", "replace")
        assert p.returncode != 0, "kcoord started with a store it cannot load"
        assert "group.streams.topology.description.plugin=/nonexistent/store.so" in err, err
    finally:
        probe.cleanup()


if __name__ == "__main__":
    run(main)
