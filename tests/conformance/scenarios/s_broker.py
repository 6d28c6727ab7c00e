# SPDX-License-Identifier: Apache-2.0
"""Broker APIs that clients call around a group."""

from conformance import scenario


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
