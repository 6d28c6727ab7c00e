# SPDX-License-Identifier: Apache-2.0
"""Steps the classic-group scenarios share: version-aware bodies of
JoinGroup, SyncGroup, Heartbeat, LeaveGroup and DescribeGroups, a member
that has joined and synced, waiting for a group state without recording."""

import helpers as h

RANGE = [("range", h.subscription_v0(["t"]))]
RR = [("roundrobin", h.subscription_v0(["t"]))]


def top(ctx, api):
    """The highest version of `api` both brokers serve."""
    return ctx.api_range(api)[1]


def low(ctx, api):
    return ctx.api_range(api)[0]


def join_body(v, group, member_id, protocols=None, instance_id=None, session=30000,
              rebalance=30000, protocol_type="consumer", reason=None):
    body = h.join_body(v, group, member_id, protocols=protocols,
                       session_timeout_ms=session, rebalance_timeout_ms=rebalance,
                       protocol_type=protocol_type, reason=reason)
    if v < 1:
        body.pop("RebalanceTimeoutMs", None)
    if v < 5:
        body.pop("GroupInstanceId", None)
    else:
        body["GroupInstanceId"] = instance_id
    return body


# SyncGroup v5 requires ProtocolType and ProtocolName (KIP-559); a client sends
# the group's. DEFAULT stands for those, None for a null.
DEFAULT = object()


def sync_body(v, group, gen, member_id, assignments=(), instance_id=None,
              protocol_type=DEFAULT, protocol_name=DEFAULT):
    if protocol_type is DEFAULT:
        protocol_type = "consumer"
    if protocol_name is DEFAULT:
        protocol_name = "range"
    body = {"GroupId": group, "GenerationId": gen, "MemberId": member_id,
            "Assignments": [{"MemberId": m, "Assignment": a} for m, a in assignments]}
    if v >= 3:
        body["GroupInstanceId"] = instance_id
    if v >= 5:
        body["ProtocolType"] = protocol_type
        body["ProtocolName"] = protocol_name
    return body


def hb_body(v, group, gen, member_id, instance_id=None):
    body = {"GroupId": group, "GenerationId": gen, "MemberId": member_id}
    if v >= 3:
        body["GroupInstanceId"] = instance_id
    return body


def leave_body(v, group, members):
    """members: [(member id, instance id, reason)]; v0-2 take the first's id."""
    if v < 3:
        return {"GroupId": group, "MemberId": members[0][0]}
    out = []
    for m in members:
        mid, iid = m[0], m[1] if len(m) > 1 else None
        e = {"MemberId": mid, "GroupInstanceId": iid}
        if v >= 5:
            e["Reason"] = m[2] if len(m) > 2 else None
        out.append(e)
    return {"GroupId": group, "Members": out}


def describe(ctx, c, group, record=True, version=None):
    v = top(ctx, "DescribeGroups") if version is None else version
    body = {"Groups": [group] if isinstance(group, str) else list(group)}
    if v >= 3:
        body["IncludeAuthorizedOperations"] = False
    return c.call("DescribeGroups", v, body, record=record)


def state_of(ctx, c, group):
    r = describe(ctx, c, group, record=False)
    return r["Groups"][0]["GroupState"] if r else None


def await_state(ctx, c, group, state):
    """Waits (unrecorded) until DescribeGroups reports `state`."""
    ctx.wait_until(lambda: state_of(ctx, c, group) == state, "group %s %s" % (group, state))


def await_members(ctx, c, group, n):
    def ok():
        r = describe(ctx, c, group, record=False)
        return r and len(r["Groups"][0]["Members"]) == n
    ctx.wait_until(ok, "group %s with %d members" % (group, n))


def join(ctx, c, group, v=None, protocols=None, instance_id=None, session=30000,
         rebalance=30000, member_id="", reason=None, record=True):
    """A member joining: at v4+ a dynamic member takes the MEMBER_ID_REQUIRED
    round trip first. Returns the final JoinGroup response."""
    v = top(ctx, "JoinGroup") if v is None else v
    r = c.call("JoinGroup", v, join_body(v, group, member_id, protocols, instance_id,
                                         session, rebalance, reason=reason), record=record)
    if r["ErrorCode"] == 79:
        r = c.call("JoinGroup", v, join_body(v, group, r["MemberId"], protocols, instance_id,
                                             session, rebalance, reason=reason), record=record)
    return r


def send_join(ctx, c, group, member_id, v=None, protocols=None, instance_id=None,
              session=30000, rebalance=30000, reason=None):
    v = top(ctx, "JoinGroup") if v is None else v
    return c.send("JoinGroup", v, join_body(v, group, member_id, protocols, instance_id,
                                            session, rebalance, reason=reason))


def new_member_id(ctx, c, group, v=None, protocols=None, session=30000, rebalance=30000):
    """v4+: the member id a new dynamic member is told to use (MEMBER_ID_REQUIRED)."""
    v = top(ctx, "JoinGroup") if v is None else v
    r = c.call("JoinGroup", v, join_body(v, group, "", protocols, None, session, rebalance))
    return r["MemberId"]


def sync(ctx, c, group, gen, member_id, assignments=(), v=None, instance_id=None,
         protocol_type=DEFAULT, protocol_name=DEFAULT, record=True):
    v = top(ctx, "SyncGroup") if v is None else v
    return c.call("SyncGroup", v, sync_body(v, group, gen, member_id, assignments, instance_id,
                                            protocol_type, protocol_name), record=record)


def send_sync(ctx, c, group, gen, member_id, assignments=(), v=None, instance_id=None):
    v = top(ctx, "SyncGroup") if v is None else v
    return c.send("SyncGroup", v, sync_body(v, group, gen, member_id, assignments, instance_id))


def heartbeat(ctx, c, group, gen, member_id, v=None, instance_id=None, record=True):
    v = top(ctx, "Heartbeat") if v is None else v
    return c.call("Heartbeat", v, hb_body(v, group, gen, member_id, instance_id), record=record)


def leave(ctx, c, group, members, v=None):
    v = top(ctx, "LeaveGroup") if v is None else v
    return c.call("LeaveGroup", v, leave_body(v, group, members))


def stable_member(ctx, c, group, v=None, protocols=None, instance_id=None, session=30000,
                  rebalance=30000, assignment=b"\x00\x01a"):
    """One member joins an empty group and syncs as leader: Stable, generation 1.
    Returns (member id, generation)."""
    r = join(ctx, c, group, v, protocols, instance_id, session, rebalance)
    mid, gen = r["MemberId"], r["GenerationId"]
    sync(ctx, c, group, gen, mid, [(mid, assignment)], instance_id=instance_id)
    return mid, gen


def add_second_member(ctx, a, b, group, a_id, v=None, a_instance=None, b_instance=None,
                      b_protocols=None, session=30000, rebalance=30000):
    """A Stable group with leader `a_id`: member b joins, a rejoins. Returns
    (a's join response, b's join response)."""
    v = top(ctx, "JoinGroup") if v is None else v
    bid = ""
    if v >= 4 and b_instance is None:
        bid = new_member_id(ctx, b, group, v, b_protocols, session, rebalance)
    hb_b = b.send("JoinGroup", v, join_body(v, group, bid, b_protocols, b_instance,
                                             session, rebalance))
    await_state(ctx, a, group, "PreparingRebalance")
    ra = a.call("JoinGroup", v, join_body(v, group, a_id, None, a_instance, session, rebalance))
    rb = b.wait(hb_b)
    return ra, rb


def two_member_group(ctx, a, b, group, v=None, a_instance=None, b_instance=None,
                     session=30000, rebalance=30000):
    """Leader a and follower b, both synced: Stable at generation 2.
    Returns (a id, b id, generation)."""
    aid, _ = stable_member(ctx, a, group, v, instance_id=a_instance, session=session,
                           rebalance=rebalance)
    ra, rb = add_second_member(ctx, a, b, group, aid, v, a_instance, b_instance,
                               session=session, rebalance=rebalance)
    gen, bid = ra["GenerationId"], rb["MemberId"]
    hs = send_sync(ctx, b, group, gen, bid, instance_id=b_instance)
    sync(ctx, a, group, gen, aid, [(aid, b"\x00\x01a"), (bid, b"\x00\x01b")],
         instance_id=a_instance)
    b.wait(hs)
    return aid, bid, gen
