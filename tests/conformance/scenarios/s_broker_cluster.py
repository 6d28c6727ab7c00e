# SPDX-License-Identifier: Apache-2.0
"""DescribeCluster on a broker listener: the cluster, its one broker and
its controller id, the endpoint types, the cluster's authorized operations
(no authorizer: every operation)."""

from conformance import scenario


def body(version, cluster_ops=False, endpoint_type=1, fenced=False):
    b = {"IncludeClusterAuthorizedOperations": cluster_ops}
    if version >= 1:
        b["EndpointType"] = endpoint_type
    if version >= 2:
        b["IncludeFencedBrokers"] = fenced
    return b


@scenario("broker.describe_cluster.brokers",
          "DescribeCluster at every version: cluster id, the broker (the advertised address of "
          "the listener asked), a random live broker as the controller id, no rack, not fenced "
          "(v2), EndpointType BROKERS (v1+), with and without the cluster's authorized "
          "operations (no authorizer: all of them), IncludeFencedBrokers (v2)",
          api="DescribeCluster")
def _(ctx):
    c = ctx.client()
    c.call("DescribeCluster", ctx.version, body(ctx.version))
    c.call("DescribeCluster", ctx.version, body(ctx.version, cluster_ops=True))
    if ctx.version >= 2:
        c.call("DescribeCluster", ctx.version, body(ctx.version, fenced=True))
        c.call("DescribeCluster", ctx.version, body(ctx.version, cluster_ops=True, fenced=True))


@scenario("broker.describe_cluster.endpoint_type",
          "DescribeCluster v1+ asking a broker for the controllers (EndpointType 2): "
          "MISMATCHED_ENDPOINT_TYPE with Kafka's message; an unknown type (0, 3, 127, -1): "
          "UNSUPPORTED_ENDPOINT_TYPE; neither answer names the cluster or a broker; the "
          "connection stays usable", api="DescribeCluster", versions=(1, None))
def _(ctx):
    c = ctx.client()
    for et in (2, 0, 3, 127, -1):
        c.call("DescribeCluster", ctx.version, body(ctx.version, cluster_ops=True,
                                                    endpoint_type=et))
    r = c.call("DescribeCluster", ctx.version, body(ctx.version), record=False)
    ctx.note("a BROKERS request afterwards: ErrorCode", r["ErrorCode"])
