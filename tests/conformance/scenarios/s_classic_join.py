# SPDX-License-Identifier: Apache-2.0
"""Classic JoinGroup scenarios."""

from conformance import scenario
import helpers as h


@scenario("classic.join.member_id_required",
          "JoinGroup v4+: a new member with an empty member id gets MEMBER_ID_REQUIRED "
          "and a member id to rejoin with, then joins as leader of generation 1",
          api="JoinGroup", versions=(4, None))
def _(ctx):
    c = ctx.client()
    g = ctx.group()
    r = c.call("JoinGroup", ctx.version, h.join_body(ctx.version, g, ""))
    c.call("JoinGroup", ctx.version, h.join_body(ctx.version, g, r["MemberId"]))
