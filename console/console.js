// SPDX-License-Identifier: Apache-2.0
// The kcoord console: a client of the admin endpoint's JSON API (docs/admin.md)
// in plain JavaScript. Every string from the API is put in the page with
// textContent or as an attribute value, never parsed as HTML.
"use strict";

(function () {
    const API_NAMES = {
        0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 8: "OffsetCommit",
        9: "OffsetFetch", 10: "FindCoordinator", 11: "JoinGroup", 12: "Heartbeat",
        13: "LeaveGroup", 14: "SyncGroup", 15: "DescribeGroups", 16: "ListGroups",
        18: "ApiVersions", 19: "CreateTopics", 22: "InitProducerId", 28: "TxnOffsetCommit",
        42: "DeleteGroups", 47: "OffsetDelete", 68: "ConsumerGroupHeartbeat",
        69: "ConsumerGroupDescribe", 88: "StreamsGroupHeartbeat", 89: "StreamsGroupDescribe",
    };
    const ERROR_NAMES = {
        "-1": "UNKNOWN_SERVER_ERROR", 3: "UNKNOWN_TOPIC_OR_PARTITION", 6: "NOT_LEADER_OR_FOLLOWER",
        7: "REQUEST_TIMED_OUT", 14: "COORDINATOR_LOAD_IN_PROGRESS", 15: "COORDINATOR_NOT_AVAILABLE",
        16: "NOT_COORDINATOR", 22: "ILLEGAL_GENERATION", 23: "INCONSISTENT_GROUP_PROTOCOL",
        24: "INVALID_GROUP_ID", 25: "UNKNOWN_MEMBER_ID", 26: "INVALID_SESSION_TIMEOUT",
        27: "REBALANCE_IN_PROGRESS", 30: "GROUP_AUTHORIZATION_FAILED", 35: "UNSUPPORTED_VERSION",
        42: "INVALID_REQUEST", 69: "GROUP_ID_NOT_FOUND", 79: "MEMBER_ID_REQUIRED",
        81: "GROUP_MAX_SIZE_REACHED", 82: "FENCED_INSTANCE_ID", 110: "FENCED_MEMBER_EPOCH",
        111: "UNRELEASED_INSTANCE_ID",
    };
    // Kafka's group states per type and the transitions drawn between them.
    const MACHINES = {
        classic: {
            states: ["Empty", "PreparingRebalance", "CompletingRebalance", "Stable"],
            edges: [["Empty", "PreparingRebalance"], ["PreparingRebalance", "CompletingRebalance"],
                    ["CompletingRebalance", "Stable"], ["Stable", "PreparingRebalance"],
                    ["CompletingRebalance", "PreparingRebalance"], ["PreparingRebalance", "Empty"]],
        },
        consumer: {
            states: ["Empty", "Assigning", "Reconciling", "Stable"],
            edges: [["Empty", "Assigning"], ["Assigning", "Reconciling"], ["Reconciling", "Stable"],
                    ["Stable", "Assigning"], ["Reconciling", "Assigning"], ["Stable", "Empty"]],
        },
        streams: {
            states: ["Empty", "NotReady", "Assigning", "Reconciling", "Stable"],
            edges: [["Empty", "NotReady"], ["NotReady", "Assigning"], ["Assigning", "Reconciling"],
                    ["Reconciling", "Stable"], ["Stable", "Assigning"], ["Reconciling", "Assigning"],
                    ["Stable", "NotReady"], ["Stable", "Empty"]],
        },
    };
    const EVENT_LABELS = {
        member_joined: "joined", member_removed: "removed", session_expired: "session expired",
        rebalance_started: "rebalance started", rebalance_completed: "rebalance completed",
        group_epoch_bumped: "group epoch bumped", group_deleted: "group deleted",
        assignment_changed: "assignment changed", fault: "fault",
    };
    const MAX_EVENTS = 5000;

    // ---- small DOM helpers (text only) ----

    function el(tag, attrs, ...kids) {
        const e = document.createElement(tag);
        for (const [k, v] of Object.entries(attrs || {})) {
            if (v === undefined || v === null || v === false) continue;
            if (k === "text") e.textContent = String(v);
            else if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
            else e.setAttribute(k, String(v));
        }
        for (const kid of kids) {
            if (kid === null || kid === undefined) continue;
            e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
        }
        return e;
    }
    function svgEl(tag, attrs) {
        const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
        for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
        return e;
    }
    function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
    function fmtTime(ms) {
        const d = new Date(ms);
        return d.toLocaleTimeString([], {hour12: false}) + "." + String(d.getMilliseconds()).padStart(3, "0");
    }
    // A date and a 24-hour time, as the timeline writes times.
    function fmtDateTime(ms) {
        const d = new Date(ms);
        return d.getFullYear() + "-" + String(d.getMonth() + 1).padStart(2, "0") + "-" +
            String(d.getDate()).padStart(2, "0") + " " + fmtTime(ms);
    }
    function apiName(k) { return k === undefined ? "any API" : (API_NAMES[k] || "API " + k) + " (" + k + ")"; }
    function errName(c) { return (ERROR_NAMES[c] || "error") + " (" + c + ")"; }
    function fmtOpt(v) { return v === null || v === undefined || v === "" ? "\u2014" : String(v); }
    function groupHref(id) { return "#/group/" + encodeURIComponent(id); }
    // A client-chosen id (up to 249 characters and more): wrapped in a
    // bounded width and cut after three lines, the whole of it in the title
    // (and in a copy of the selection).
    function idText(text, tag, attrs) {
        const v = fmtOpt(text);
        return el(tag || "span", {...attrs, class: "clip", title: v.length > 40 ? v : null, text: v});
    }
    // A member's session deadline counting down from a read of the group:
    // remaining_ms as read at readAt (performance.now()), redrawn by the
    // ticker below until the next read replaces it.
    function sessionCountdown(m, readAt) {
        if (m.session_remaining_ms === null || m.session_remaining_ms === undefined) return null;
        const s = el("span", {class: "countdown", "data-deadline": readAt + m.session_remaining_ms,
                              title: m.session_deadline_ms ? "the session expires at " + fmtTime(m.session_deadline_ms) +
                                  " unless a heartbeat comes first" : null});
        tickCountdown(s);
        return s;
    }
    function tickCountdown(s) {
        const left = Number(s.dataset.deadline) - performance.now();
        s.textContent = left > 0 ? (left / 1000).toFixed(1) + " s" : "due";
        s.classList.toggle("due", left <= 0);
    }

    async function api(method, path, body) {
        const opts = {method, headers: {}};
        if (body !== undefined) {
            opts.body = JSON.stringify(body);
            opts.headers["Content-Type"] = "application/json";
        }
        const r = await fetch(path, opts);
        let j = null;
        try { j = await r.json(); } catch (e) { j = null; }
        if (!r.ok) throw new Error((j && j.error) || ("HTTP " + r.status));
        return j;
    }

    // ---- the event store: the stream's events plus the console's own ----

    const store = {
        events: [],          // {seq?, time_ms, type, group_id, member_id, generation, duration_ms, reason}
        listeners: new Set(),
        lastSeq: 0,
        add(ev) {
            this.events.push(ev);
            if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
            for (const fn of this.listeners) fn(ev);
        },
    };

    function connectEvents() {
        const live = document.getElementById("live");
        const es = new EventSource("/v1/events?stream=1");
        // The server sends what follows the last id seen (after a restart of
        // kcoord, whose ids count from 1 again, everything it keeps): take
        // whatever a new connection brings.
        es.onopen = () => {
            live.textContent = "live";
            live.className = "live on";
            store.lastSeq = 0;
        };
        es.onerror = () => { live.textContent = "reconnecting"; live.className = "live off"; };
        const onEvent = (m) => {
            let ev;
            try { ev = JSON.parse(m.data); } catch (e) { return; }
            if (typeof ev.seq === "number") {
                if (ev.seq <= store.lastSeq) return; // already shown
                store.lastSeq = ev.seq;
            }
            store.add(ev);
        };
        for (const t of ["member_joined", "rebalance_started", "rebalance_completed", "member_removed",
                         "session_expired", "group_deleted", "group_epoch_bumped"])
            es.addEventListener(t, onEvent);
        es.onmessage = onEvent;
    }

    // ---- faults: polled, with their hits and their end put on the timeline ----

    const faults = {
        list: [], byId: new Map(), cleared: new Set(), error: null, listeners: new Set(),
        note(f, text) {
            store.add({time_ms: Date.now(), type: "fault", group_id: f.group_id, member_id: null,
                       generation: null, duration_ms: 0, reason: text, fault_id: f.id});
        },
        describe(f) {
            let s = "#" + f.id + " " + f.type;
            if (f.type === "error" || f.type === "close") s += " on " + apiName(f.api_key);
            else if (f.api_key !== undefined) s += " on " + apiName(f.api_key);
            if (f.error_code !== undefined) s += " \u2192 " + errName(f.error_code);
            if (f.delay_ms !== undefined) s += " by " + f.delay_ms + " ms";
            if (f.group_id) s += " for group " + f.group_id;
            if (f.client_id) s += " for client " + f.client_id;
            return s;
        },
        // Records a fault armed from this page right away (its first poll
        // may come after it was spent).
        added(f) {
            if (this.byId.has(f.id)) return;
            this.byId.set(f.id, f);
            this.note(f, "armed " + this.describe(f));
        },
        update(list) {
            const seen = new Set();
            for (const f of list) {
                seen.add(f.id);
                const old = this.byId.get(f.id);
                if (!old) this.note(f, "armed " + this.describe(f));
                else if (f.hits > old.hits)
                    this.note(f, "hit " + this.describe(f) + " (" + f.hits + " hit" + (f.hits === 1 ? "" : "s") + ")");
                this.byId.set(f.id, f);
            }
            for (const [id, old] of this.byId) {
                if (seen.has(id)) continue;
                this.byId.delete(id);
                if (this.cleared.delete(id)) this.note(old, "cleared " + this.describe(old));
                else if (old.remaining > 0 && (old.remaining_ms < 0 || old.remaining_ms > 1500)) {
                    // The requests it was set for: the hits seen and those
                    // left at the last poll (the last hits may come between polls).
                    const total = old.hits + old.remaining;
                    this.note(old, "spent " + this.describe(old) + " after " + total + " hit" +
                              (total === 1 ? "" : "s") + ": it applied to every request it was set for");
                }
                else this.note(old, "ended " + this.describe(old) + " (its window passed or it was cleared)");
            }
            this.list = list;
            document.getElementById("fault-count").textContent = list.length ? String(list.length) : "";
            for (const fn of this.listeners) fn();
        },
        async poll() {
            try {
                const j = await api("GET", "/v1/faults");
                this.error = null;
                this.update(j.faults || []);
                this.stallQueue = j.stall_queue;
            } catch (e) {
                this.error = e.message;
                for (const fn of this.listeners) fn();
            }
        },
    };

    // ---- the timeline ----

    // A live list of events matching filter(ev), with pause and scroll back.
    function timeline(filter, title) {
        const list = el("ol", {class: "timeline", "aria-live": "polite"});
        const pending = el("span", {class: "pending-count"});
        let paused = false, held = [];
        const pauseBtn = el("button", {type: "button", class: "tl-pause", text: "Pause"});
        pauseBtn.addEventListener("click", () => {
            paused = !paused;
            pauseBtn.textContent = paused ? "Resume" : "Pause";
            if (!paused) { for (const ev of held) append(ev); held = []; pending.textContent = ""; }
        });
        function line(ev) {
            const kind = EVENT_LABELS[ev.type] || ev.type;
            // Each part a list of nodes; client-chosen ids in <bdi>, so that
            // their text direction stays inside them.
            const parts = [];
            if (ev.member_id) parts.push(["member ", el("bdi", {text: ev.member_id})]);
            if (ev.type === "rebalance_completed") parts.push(["in " + ev.duration_ms + " ms"]);
            // A classic group's generation, a consumer or streams group's epoch.
            const type = ev.group_type || (filter.type && filter.type());
            if (ev.generation !== null && ev.generation !== undefined && ev.type !== "fault")
                parts.push([(type && type !== "classic" ? "group epoch " : "generation ") + ev.generation]);
            if (ev.reason) parts.push([el("bdi", {text: ev.reason})]);
            if (!filter.group)
                parts.unshift(ev.group_id ? ["group ", el("bdi", {text: ev.group_id})] : ["all groups"]);
            const d = el("span", {class: "d"});
            parts.forEach((p, i) => { if (i) d.append(" \u00b7 "); d.append(...p); });
            return el("li", {class: ev.type, "data-type": ev.type, "data-seq": ev.seq},
                      el("span", {class: "t", text: fmtTime(ev.time_ms)}),
                      el("span", {class: "k", text: kind}), d);
        }
        function append(ev) {
            const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
            list.append(line(ev));
            while (list.childElementCount > MAX_EVENTS) list.removeChild(list.firstChild);
            if (atEnd) list.scrollTop = list.scrollHeight;
        }
        function matches(ev) {
            if (ev.type === "fault") return !filter.group || !ev.group_id || ev.group_id === filter.group;
            return !filter.group || ev.group_id === filter.group;
        }
        for (const ev of store.events) if (matches(ev)) list.append(line(ev));
        const onEv = (ev) => {
            if (!matches(ev)) return;
            if (paused) { held.push(ev); pending.textContent = held.length + " new while paused"; }
            else append(ev);
        };
        store.listeners.add(onEv);
        const root = el("section", {class: "panel", id: "timeline"},
                        el("h2", {text: title}),
                        el("div", {class: "tl-bar"}, pauseBtn, pending),
                        list);
        requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
        return {root, dispose() { store.listeners.delete(onEv); }};
    }

    // ---- views ----

    const main = () => document.getElementById("main");
    let view = null; // {dispose(), refresh()}

    function groupEpoch(g) {
        if (g.type === "classic") return "generation " + g.generation_id;
        let s = "group epoch " + g.group_epoch + ", assignment epoch " + g.assignment_epoch;
        if (g.type === "streams") s += ", topology epoch " + g.topology_epoch;
        return s;
    }

    function groupsView() {
        const filt = {type: "", state: "", text: ""};
        const typeSel = el("select", {id: "filter-type", "aria-label": "type"},
                           el("option", {value: "", text: "every type"}),
                           ...["classic", "consumer", "streams"].map(t => el("option", {value: t, text: t})));
        const stateSel = el("select", {id: "filter-state", "aria-label": "state"},
                            el("option", {value: "", text: "every state"}));
        const textIn = el("input", {id: "filter-text", type: "search", placeholder: "group id contains"});
        const body = el("tbody");
        const status = el("p", {class: "empty"});
        let groups = [];
        function states() {
            const s = new Set();
            for (const [t, m] of Object.entries(MACHINES))
                if (!filt.type || filt.type === t) m.states.forEach(x => s.add(x));
            s.add("Dead");
            return [...s];
        }
        function fillStates() {
            const cur = stateSel.value;
            while (stateSel.options.length > 1) stateSel.remove(1);
            for (const s of states()) stateSel.append(el("option", {value: s, text: s}));
            stateSel.value = states().includes(cur) ? cur : "";
            filt.state = stateSel.value;
        }
        function render() {
            clear(body);
            const shown = groups.filter(g => (!filt.type || g.type === filt.type) &&
                                             (!filt.state || g.state === filt.state) &&
                                             (!filt.text || g.group_id.includes(filt.text)));
            shown.sort((a, b) => a.group_id < b.group_id ? -1 : a.group_id > b.group_id ? 1 : 0);
            for (const g of shown) {
                body.append(el("tr", {"data-group": g.group_id},
                    el("td", {class: "id"}, idText(g.group_id, "a", {href: groupHref(g.group_id)})),
                    el("td", {class: "type", text: g.type}),
                    el("td", {}, el("span", {class: "state " + g.state, text: g.state})),
                    el("td", {class: "num members", text: g.members.length}),
                    el("td", {class: "epoch", text: groupEpoch(g)}),
                    el("td", {class: "num", text: g.committed_partitions}),
                    el("td", {class: "num lag", text: g.lag_total})));
            }
            status.textContent = groups.length === 0 ? "No groups yet." :
                shown.length === 0 ? "No group matches the filters." : "";
        }
        typeSel.addEventListener("change", () => { filt.type = typeSel.value; fillStates(); render(); });
        stateSel.addEventListener("change", () => { filt.state = stateSel.value; render(); });
        textIn.addEventListener("input", () => { filt.text = textIn.value; render(); });
        fillStates();
        const tl = timeline({}, "Events of every group");
        const m = main();
        clear(m);
        m.append(el("section", {class: "panel"},
                    el("h2", {text: "Groups"}),
                    el("div", {class: "filters"},
                       el("label", {}, "Type ", typeSel), el("label", {}, "State ", stateSel),
                       el("label", {}, "Search ", textIn)),
                    el("table", {id: "groups"},
                       el("thead", {}, el("tr", {},
                          el("th", {text: "group"}), el("th", {text: "type"}), el("th", {text: "state"}),
                          el("th", {class: "num", text: "members"}), el("th", {text: "epochs"}),
                          el("th", {class: "num", text: "committed partitions"}),
                          el("th", {class: "num", text: "lag"}))),
                       body),
                    status),
                 tl.root);
        return {
            async refresh() {
                const j = await api("GET", "/v1/groups");
                groups = j.groups || [];
                render();
            },
            onEvent() { return true; },
            dispose() { tl.dispose(); },
        };
    }

    // The state machine of a group type as SVG, the current state filled.
    function stateMachine(type, current) {
        const m = MACHINES[type] || MACHINES.classic;
        const W = 150, H = 34, GAP = 40, X0 = 10, Y0 = 50;
        const n = m.states.length;
        const width = X0 * 2 + n * W + (n - 1) * GAP + 110;
        const svg = svgEl("svg", {class: "sm", viewBox: "0 0 " + width + " 150", role: "img",
                                  "aria-label": type + " group state machine, now " + current});
        const defs = svgEl("defs");
        const marker = svgEl("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
                                        markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse"});
        marker.append(svgEl("path", {d: "M0,0 L10,5 L0,10 z", class: "head"}));
        defs.append(marker);
        svg.append(defs);
        const pos = {};
        m.states.forEach((s, i) => { pos[s] = X0 + i * (W + GAP); });
        pos.Dead = X0 + n * (W + GAP) - GAP + 30;
        for (const [a, b] of m.edges) {
            const xa = pos[a], xb = pos[b];
            let d;
            if (xb > xa && Math.abs(m.states.indexOf(b) - m.states.indexOf(a)) === 1)
                d = "M" + (xa + W) + "," + (Y0 + H / 2) + " L" + (xb - 2) + "," + (Y0 + H / 2);
            else if (xb > xa) // a forward jump: over the top
                d = "M" + (xa + W / 2) + "," + Y0 + " C" + (xa + W / 2) + ",5 " + (xb + W / 2) + ",5 " + (xb + W / 2) + "," + (Y0 - 2);
            else { // back: underneath, deeper the further it goes
                const depth = Y0 + H + 18 + 14 * (m.states.indexOf(a) - m.states.indexOf(b));
                d = "M" + (xa + W / 2 - 10) + "," + (Y0 + H) + " C" + (xa + W / 2 - 10) + "," + depth + " " +
                    (xb + W / 2 + 10) + "," + depth + " " + (xb + W / 2 + 10) + "," + (Y0 + H + 2);
            }
            svg.append(svgEl("path", {d, "marker-end": "url(#arrow)"}));
        }
        for (const s of m.states.concat(["Dead"])) {
            const g = svgEl("g", {class: s === current ? "current" : "", "data-state": s});
            const w = s === "Dead" ? 80 : W;
            g.append(svgEl("rect", {x: pos[s], y: Y0, width: w, height: H, rx: 8}));
            const t = svgEl("text", {x: pos[s] + w / 2, y: Y0 + H / 2 + 4, "text-anchor": "middle"});
            t.textContent = s;
            g.append(t);
            svg.append(g);
        }
        const note = svgEl("text", {class: "note", x: pos.Dead, y: Y0 - 8});
        note.textContent = "from any state";
        svg.append(note);
        return svg;
    }

    // Partitions (consumer) or tasks (streams) as "key" strings, per member:
    // {owned: Set, target: Set, revoking: Set, kinds: Map key -> A/S/W}
    function memberCells(g, mem) {
        const owned = new Set(), target = new Set(), revoking = new Set(), kinds = new Map();
        const add = (set, obj, kind) => {
            for (const [t, ps] of Object.entries(obj || {}))
                for (const p of ps) { const k = t + "\u0000" + p; set.add(k); if (kind) kinds.set(k, kind); }
        };
        if (g.type === "classic") {
            const a = mem.assignment && mem.assignment.partitions;
            add(owned, a); add(target, a);
        } else if (g.type === "consumer") {
            add(owned, mem.assigned_partitions);
            add(target, mem.target_assignment);
            add(revoking, mem.partitions_pending_revocation);
        } else {
            for (const [kind, letter] of [["active", "A"], ["standby", "S"], ["warmup", "W"]]) {
                add(owned, (mem.assigned_tasks || {})[kind], letter);
                add(target, (mem.target_assignment || {})[kind], letter);
                add(revoking, (mem.tasks_pending_revocation || {})[kind], letter);
            }
        }
        return {owned, target, revoking, kinds};
    }
    function keyCompare(a, b) {
        const [ta, pa] = a.split("\u0000"), [tb, pb] = b.split("\u0000");
        return ta < tb ? -1 : ta > tb ? 1 : Number(pa) - Number(pb);
    }
    function assignmentSummary(cells) {
        return [...cells.owned].sort(keyCompare).map(k => k.replace("\u0000", "-")).join(",");
    }

    // A member's row in the grid: its member id, long ones cut in the middle
    // (a classic member id starts with the client id and ends in a UUID),
    // after the client id only where that tells members apart and is not
    // already in the member id.
    function memberLabel(g, m) {
        const mid = m.member_id, cid = m.client_id || "";
        const short = mid.length > 30 ? mid.slice(0, 16) + "\u2026" + mid.slice(-12) : mid;
        const shared = g.members.every(o => (o.client_id || "") === cid);
        return !cid || shared || mid.startsWith(cid) ? short : cid + " \u00b7 " + short;
    }

    function assignmentGrid(g) {
        const per = g.members.map(m => [m, memberCells(g, m)]);
        const keys = new Set();
        for (const [, c] of per) for (const s of [c.owned, c.target, c.revoking]) s.forEach(k => keys.add(k));
        for (const o of g.offsets || []) if (g.type !== "streams") keys.add(o.topic + "\u0000" + o.partition);
        const cols = [...keys].sort(keyCompare);
        if (!g.members.length) return el("p", {class: "empty", text: "No members."});
        if (!cols.length) return el("p", {class: "empty", text: g.type === "classic" && g.protocol_type !== "consumer"
            ? "The assignment is not a consumer protocol assignment (protocol type " + fmtOpt(g.protocol_type) + ")."
            : "Nothing assigned yet."});
        const head = el("tr", {}, el("th", {text: "member"}));
        for (const k of cols) {
            const [t, p] = k.split("\u0000");
            head.append(el("th", {class: "col", title: t + " " + (g.type === "streams" ? "subtopology " : "partition ") + p},
                           el("span", {class: "clip", text: t}), p));
        }
        const body = el("tbody");
        for (const [m, c] of per) {
            const title = "member " + m.member_id + (m.client_id ? "\nclient " + m.client_id : "") +
                (m.instance_id || m.group_instance_id ? "\ninstance " + (m.instance_id || m.group_instance_id) : "");
            const tr = el("tr", {"data-member": m.member_id},
                          el("td", {class: "id label"}, el("span", {class: "clip", text: memberLabel(g, m), title})));
            for (const k of cols) {
                let cls = "", label = "", what = "";
                const kind = c.kinds.get(k) || "";
                if (c.revoking.has(k)) { cls = "revoking"; label = kind || "R"; what = "pending revocation"; }
                else if (c.owned.has(k) && c.target.has(k)) { cls = kind === "S" ? "standby" : "owned"; label = kind || "\u2713"; what = "owned"; }
                else if (c.owned.has(k)) { cls = "revoking"; label = kind || "R"; what = "owned, not in the target"; }
                else if (c.target.has(k)) { cls = "pending"; label = kind || "\u2026"; what = "target, not yet owned"; }
                const td = el("td", {class: "cell " + cls, "data-key": k.replace("\u0000", "-"), title: what});
                if (cls) td.append(el("span", {text: label}));
                tr.append(td);
            }
            body.append(tr);
        }
        const legend = el("div", {class: "legend"},
            el("span", {}, el("span", {class: "sw owned"}), "owned (current = target)"),
            el("span", {}, el("span", {class: "sw pending"}), "target, not yet owned"),
            el("span", {}, el("span", {class: "sw revoking"}), "pending revocation"));
        if (g.type === "streams")
            legend.append(el("span", {text: "A active, S standby, W warm-up task; columns are subtopology and partition"}));
        return el("div", {}, el("table", {class: "agrid", id: "assignment"}, el("thead", {}, head), body), legend);
    }

    function membersTable(g, readAt) {
        if (!g.members.length) return el("p", {class: "empty", text: "No members."});
        const session = ["session expires in", m => sessionCountdown(m, readAt), "num"];
        let cols;
        if (g.type === "classic")
            cols = [["member id", m => idText(m.member_id), "id"], ["instance id", m => idText(m.group_instance_id), "id"],
                    ["client id", m => idText(m.client_id), "id"], ["client host", m => m.client_host],
                    ["role", m => m.member_id === g.leader_id ? "leader" : ""], session,
                    ["session timeout", m => m.session_timeout_ms + " ms"],
                    ["rebalance timeout", m => m.rebalance_timeout_ms + " ms"],
                    ["waiting", m => m.awaiting_join ? "JoinGroup" : m.awaiting_sync ? "SyncGroup" : ""],
                    ["assignment", m => m.assignment ? idText(assignmentSummary(memberCells(g, m)).replace(/,/g, ", ")) : m.assignment_bytes + " bytes", "id"]];
        else {
            // Client id and host in one cell, the member epoch with the
            // previous one: a streams member's row fits a laptop's width.
            const client = m => el("div", {}, idText(m.client_id, "div"), el("div", {class: "host", text: m.client_host}));
            cols = [["member id", m => idText(m.member_id), "id"], ["instance id", m => idText(m.instance_id), "id"],
                    ["client id and host", client, "id"], session,
                    ["epoch (previous)", m => m.member_epoch + " (" + m.previous_member_epoch + ")", "num"],
                    ["state", m => m.state]];
            // The rack only when a member has one.
            if (g.members.some(m => m.rack_id)) cols.splice(3, 0, ["rack", m => idText(m.rack_id), "id"]);
            if (g.type === "consumer")
                cols.push(["subscription", m => idText(m.subscribed_topic_regex ? "/" + m.subscribed_topic_regex + "/"
                                                                 : (m.subscribed_topic_names || []).join(", ")), "id"]);
            else
                cols.push(["process", m => idText(m.process_id), "id"], ["topology epoch", m => m.topology_epoch, "num"],
                          ["endpoint", m => m.user_endpoint ? m.user_endpoint.host + ":" + m.user_endpoint.port : ""]);
            cols.push(["rebalance timeout", m => m.rebalance_timeout_ms + " ms"]);
        }
        const head = el("tr", {}, ...cols.map(([h, , c]) => el("th", {class: c === "num" ? "num" : null, text: h})));
        const body = el("tbody");
        const cell = (v, c) => v instanceof Node ? el("td", {class: c || null}, v) : el("td", {class: c || null, text: fmtOpt(v)});
        for (const m of g.members)
            body.append(el("tr", {"data-member": m.member_id}, ...cols.map(([, f, c]) => cell(f(m), c))));
        return el("table", {id: "members"}, el("thead", {}, head), body);
    }

    function offsetsTable(g) {
        const offs = (g.offsets || []).slice().sort((a, b) => keyCompare(a.topic + "\u0000" + a.partition, b.topic + "\u0000" + b.partition));
        if (!offs.length) return el("p", {class: "empty", text: "No committed offsets."});
        const body = el("tbody");
        for (const o of offs)
            body.append(el("tr", {"data-key": o.topic + "-" + o.partition},
                el("td", {class: "id"}, idText(o.topic)), el("td", {class: "num", text: o.partition}),
                el("td", {class: "num", text: o.offset}), el("td", {class: "num", text: fmtOpt(o.log_end_offset)}),
                el("td", {class: "num lag", text: o.lag === null ? "topic gone" : o.lag}),
                el("td", {class: "num", text: o.leader_epoch}),
                el("td", {text: o.commit_timestamp_ms > 0 ? fmtDateTime(o.commit_timestamp_ms) : "\u2014"}),
                el("td", {class: "id"}, idText(o.metadata))));
        return el("table", {id: "offsets"},
            el("thead", {}, el("tr", {}, ...["topic", "partition", "committed", "log end", "lag", "leader epoch", "committed at", "metadata"]
                .map((h, i) => el("th", {class: [1, 2, 3, 4, 5].includes(i) ? "num" : null, text: h})))),
            body);
    }

    // A streams group's subtopologies and their topics (the topology its
    // first member sent; internal topics with their partition counts).
    function topologyTable(g) {
        const t = g.topology;
        if (!t) return el("p", {class: "empty", text: "No topology yet."});
        const names = (xs) => {
            const td = el("td", {class: "id"});
            if (!xs.length) td.append("\u2014");
            xs.forEach((x, i) => { if (i) td.append(", "); td.append(idText(x)); });
            return td;
        };
        const internal = (xs) => names(xs.map(x => x.partitions > 0 ? x.name + " (" + x.partitions + ")" : x.name));
        const body = el("tbody");
        for (const s of t.subtopologies)
            body.append(el("tr", {"data-subtopology": s.subtopology_id},
                el("td", {class: "id"}, idText(s.subtopology_id)),
                names(s.source_topics.concat(s.source_topic_regex.map(r => "/" + r + "/"))),
                internal(s.repartition_source_topics), names(s.repartition_sink_topics),
                internal(s.state_changelog_topics)));
        return el("table", {id: "topology"},
            el("caption", {text: "topology epoch " + t.epoch}),
            el("thead", {}, el("tr", {}, ...["subtopology", "source topics", "repartition source topics",
                                            "repartition sink topics", "state changelog topics"]
                .map(h => el("th", {text: h})))),
            body);
    }

    function groupView(id) {
        const m = main();
        clear(m);
        const head = el("section", {class: "panel", id: "group-head"}, idText("Group " + id, "h2"));
        const summary = el("div");
        head.append(summary);
        const smPanel = el("section", {class: "panel", id: "state-machine"}, el("h2", {text: "State"}));
        const smBox = el("div");
        smPanel.append(smBox);
        const membersPanel = el("section", {class: "panel"}, el("h2", {text: "Members"}));
        const membersBox = el("div");
        membersPanel.append(membersBox);
        const gridPanel = el("section", {class: "panel"}, el("h2", {text: "Assignment: current and target"}));
        const gridBox = el("div");
        gridPanel.append(gridBox);
        const topoPanel = el("section", {class: "panel", id: "topology-panel", hidden: true}, el("h2", {text: "Topology"}));
        const topoBox = el("div");
        topoPanel.append(topoBox);
        const offPanel = el("section", {class: "panel"}, el("h2", {text: "Committed offsets and lag"}));
        const offBox = el("div");
        offPanel.append(offBox);
        let lastType = null;
        // Made after the first read of the group, whose type names the
        // events' generation (classic) or group epoch (consumer, streams).
        let tl = null;
        const tlSlot = el("div");
        const makeTimeline = () => {
            if (tl) return;
            tl = timeline({group: id, type: () => lastType}, "Timeline");
            tlSlot.replaceWith(tl.root);
        };
        m.append(head, smPanel, membersPanel, gridPanel, topoPanel, offPanel, tlSlot);
        let prev = null; // member id -> assignment summary, for "assignment changed"
        return {
            async refresh() {
                let g;
                try {
                    g = await api("GET", "/v1/groups/" + encodeURIComponent(id));
                } catch (e) {
                    clear(summary);
                    summary.append(el("p", {class: "empty", id: "group-missing", text: "No such group now (" + e.message + ")."}));
                    makeTimeline();
                    return;
                }
                const readAt = performance.now();
                lastType = g.type;
                makeTimeline();
                clear(summary);
                const kv = el("dl", {class: "kv"});
                const row = (k, v, idv) => kv.append(el("dt", {text: k}), el("dd", {id: idv, text: fmtOpt(v)}));
                row("type", g.type, "g-type");
                row("state", g.state, "g-state");
                if (g.type === "classic") {
                    row("generation", g.generation_id, "g-generation");
                    row("protocol", fmtOpt(g.protocol_type) + " / " + fmtOpt(g.protocol_name));
                    row("leader", g.leader_id);
                } else {
                    row("group epoch", g.group_epoch, "g-group-epoch");
                    row("assignment epoch", g.assignment_epoch, "g-assignment-epoch");
                    if (g.type === "streams")
                        row("topology epoch", g.topology_epoch === -1 ? "-1 (no topology yet)" : g.topology_epoch, "g-topology-epoch");
                    row("assignor", g.assignor);
                    if (g.type === "streams") {
                        // The topology-description store's epochs (KIP-1331):
                        // -2 while a store operation may not have finished.
                        const desc = (v) => v === -2 ? "uncertain (-2)" : v === -1 ? "none (-1)" : v;
                        row("stored description topology epoch", desc(g.stored_description_topology_epoch), "g-stored-description-epoch");
                        row("failed description topology epoch", desc(g.failed_description_topology_epoch), "g-failed-description-epoch");
                    }
                }
                row("members", g.members.length, "g-members");
                row("lag", g.lag_total + " over " + g.committed_partitions + " committed partitions", "g-lag");
                summary.append(kv);
                clear(smBox);
                smBox.append(stateMachine(g.type, g.state));
                clear(membersBox);
                membersBox.append(membersTable(g, readAt));
                clear(gridBox);
                gridBox.append(assignmentGrid(g));
                topoPanel.hidden = g.type !== "streams";
                clear(topoBox);
                if (g.type === "streams") topoBox.append(topologyTable(g));
                clear(offBox);
                offBox.append(offsetsTable(g));
                const now = new Map(g.members.map(mm => [mm.member_id, assignmentSummary(memberCells(g, mm))]));
                if (prev) {
                    const changed = [];
                    for (const [mid, a] of now) if (prev.get(mid) !== a && a !== "") changed.push([mid, a]);
                    for (const [mid, a] of changed)
                        store.add({time_ms: Date.now(), type: "assignment_changed", group_id: id, member_id: mid,
                                   generation: null, duration_ms: 0, reason: "now owns " + a});
                }
                prev = now;
            },
            onEvent(ev) { return ev.group_id === id; },
            dispose() { if (tl) tl.dispose(); },
            get type() { return lastType; },
        };
    }

    const FAULT_FIELDS = {
        error: ["api_key", "error_code", "count", "duration_ms", "group_id", "client_id"],
        delay: ["delay_ms", "api_key", "count", "duration_ms"],
        stall: ["duration_ms"],
        coordinator: ["error_code", "duration_ms", "api_key", "group_id"],
        close: ["api_key", "count", "group_id", "client_id"],
    };

    function faultsView() {
        const m = main();
        clear(m);
        const typeSel = el("select", {name: "type", id: "f-type"},
            el("option", {value: "error", text: "error on an API"}),
            el("option", {value: "delay", text: "delay responses"}),
            el("option", {value: "stall", text: "stall the coordinator"}),
            el("option", {value: "coordinator", text: "coordinator window (load / move)"}),
            el("option", {value: "close", text: "close after a request"}));
        const apiSel = el("select", {name: "api_key", id: "f-api"}, el("option", {value: "", text: "any API"}),
            ...Object.entries(API_NAMES).map(([k, n]) => el("option", {value: k, text: n + " (" + k + ")"})));
        const errSel = el("select", {name: "error_code", id: "f-error"},
            ...Object.entries(ERROR_NAMES).map(([k, n]) => el("option", {value: k, text: n + " (" + k + ")"})));
        errSel.value = "15";
        const num = (name, ph) => el("input", {name, id: "f-" + name.replace("_", "-"), type: "number", min: 0, placeholder: ph});
        const inputs = {
            api_key: apiSel, error_code: errSel, count: Object.assign(num("count", "1 (the next request)"), {min: 1}),
            duration_ms: num("duration_ms", "ms"), delay_ms: num("delay_ms", "ms"),
            group_id: el("input", {name: "group_id", id: "f-group", placeholder: "any group"}),
            client_id: el("input", {name: "client_id", id: "f-client", placeholder: "any client"}),
        };
        const labels = {api_key: "API", error_code: "error code", count: "for the next N requests",
                        duration_ms: "for (ms)", delay_ms: "delay (ms)", group_id: "group id", client_id: "client id"};
        const wraps = {};
        const form = el("form", {class: "fault", id: "fault-form"}, el("label", {}, "fault", typeSel));
        for (const [k, input] of Object.entries(inputs)) {
            wraps[k] = el("label", {}, labels[k], input);
            form.append(wraps[k]);
        }
        const msg = el("span", {id: "fault-msg", role: "status"});
        form.append(el("div", {class: "actions"}, el("button", {type: "submit", class: "primary", id: "f-add", text: "Add fault"}), msg));
        // An error or a close needs an API (kcoord refuses one for every
        // API, which would break the clients' every request): JoinGroup
        // unless another is chosen.
        const anyApi = apiSel.options[0];
        function showFields() {
            const want = FAULT_FIELDS[typeSel.value];
            for (const [k, w] of Object.entries(wraps)) w.hidden = !want.includes(k);
            const needsApi = typeSel.value === "error" || typeSel.value === "close";
            anyApi.disabled = anyApi.hidden = needsApi;
            if (needsApi && apiSel.value === "") apiSel.value = "11";
            if (typeSel.value === "coordinator" && !["14", "15", "16"].includes(errSel.value)) errSel.value = "15";
        }
        typeSel.addEventListener("change", showFields);
        showFields();
        const hash = location.hash.split("?")[1];
        if (hash) { const q = new URLSearchParams(hash); if (q.get("group")) inputs.group_id.value = q.get("group"); }
        form.addEventListener("submit", async (e) => {
            e.preventDefault();
            const spec = {type: typeSel.value};
            for (const k of FAULT_FIELDS[typeSel.value]) {
                const v = inputs[k].value.trim();
                if (v === "") continue;
                spec[k] = (k === "group_id" || k === "client_id") ? v : Number(v);
            }
            msg.className = "";
            msg.textContent = "adding\u2026";
            try {
                const f = await api("POST", "/v1/faults", spec);
                faults.added(f);
                msg.className = "ok";
                msg.textContent = "added " + faults.describe(f);
                faults.poll();
            } catch (err) {
                msg.className = "error";
                msg.textContent = "refused: " + err.message;
            }
        });
        const body = el("tbody");
        const status = el("p", {class: "empty"});
        const clearAll = el("button", {type: "button", class: "danger", id: "f-clear-all", text: "Clear every fault"});
        clearAll.addEventListener("click", async () => {
            for (const f of faults.list) faults.cleared.add(f.id);
            try { await api("DELETE", "/v1/faults"); } catch (e) { status.textContent = e.message; }
            faults.poll();
        });
        function render() {
            clear(body);
            for (const f of faults.list) {
                const btn = el("button", {type: "button", class: "danger", text: "Clear"});
                btn.addEventListener("click", async () => {
                    faults.cleared.add(f.id);
                    try { await api("DELETE", "/v1/faults/" + f.id); } catch (e) { status.textContent = e.message; }
                    faults.poll();
                });
                body.append(el("tr", {"data-fault": f.id},
                    el("td", {class: "num", text: f.id}), el("td", {text: f.type}),
                    el("td", {text: f.api_key === undefined ? "any" : apiName(f.api_key)}),
                    el("td", {text: f.error_code === undefined ? "\u2014" : errName(f.error_code)}),
                    el("td", {class: "num", text: f.delay_ms === undefined ? "\u2014" : f.delay_ms + " ms"}),
                    el("td", {class: "num", text: f.remaining < 0 ? "unlimited" : f.remaining}),
                    el("td", {class: "num", text: f.remaining_ms < 0 ? "no end" : (f.remaining_ms / 1000).toFixed(1) + " s"}),
                    el("td", {class: "id"}, idText(f.group_id)), el("td", {class: "id"}, idText(f.client_id)),
                    el("td", {class: "num", text: f.hits}), el("td", {}, btn)));
            }
            status.textContent = faults.error ? "cannot read the faults: " + faults.error :
                faults.list.length ? (faults.stallQueue ? faults.stallQueue + " requests queued behind a stall" : "") : "No fault in force.";
        }
        faults.listeners.add(render);
        const tl = timeline({}, "Events of every group");
        m.append(el("section", {class: "panel"}, el("h2", {text: "Add a fault"}), form),
                 el("section", {class: "panel"}, el("h2", {text: "Faults in force"}),
                    el("table", {id: "faults"}, el("thead", {}, el("tr", {},
                        ...["id", "type", "API", "error", "delay", "requests left", "time left", "group", "client", "hits", ""]
                            .map(h => el("th", {text: h})))), body),
                    status, clearAll),
                 tl.root);
        render();
        return {
            async refresh() { await faults.poll(); },
            onEvent() { return false; },
            dispose() { faults.listeners.delete(render); tl.dispose(); },
        };
    }

    // ---- routing and refresh ----

    let refreshTimer = null, refreshing = false, again = false;
    function scheduleRefresh(delay) {
        if (refreshTimer) return;
        refreshTimer = setTimeout(async () => {
            refreshTimer = null;
            if (!view) return;
            if (refreshing) { again = true; return; }
            refreshing = true;
            try { await view.refresh(); } catch (e) { /* the next event or tick retries */ }
            refreshing = false;
            if (again) { again = false; scheduleRefresh(0); }
        }, delay);
    }

    function route() {
        if (view) view.dispose();
        const h = location.hash || "#/";
        document.getElementById("nav-groups").className = h.startsWith("#/faults") ? "" : "active";
        document.getElementById("nav-faults").className = h.startsWith("#/faults") ? "active" : "";
        if (h.startsWith("#/group/")) view = groupView(decodeURIComponent(h.slice(8)));
        else if (h.startsWith("#/faults")) view = faultsView();
        else view = groupsView();
        document.title = "kcoord console";
        scheduleRefresh(0);
    }

    function start() {
        const big = document.getElementById("big");
        if (localStorage.getItem("kcoord-console-big") === "1") document.body.classList.add("big");
        big.addEventListener("click", () => {
            const on = document.body.classList.toggle("big");
            localStorage.setItem("kcoord-console-big", on ? "1" : "0");
        });
        store.listeners.add((ev) => {
            if (view && ev.type !== "assignment_changed" && ev.type !== "fault" && view.onEvent(ev))
                scheduleRefresh(150);
        });
        window.addEventListener("hashchange", route);
        faults.poll();
        connectEvents();
        route();
        // Lag and a session's end give no event: views are read again every 2 s.
        setInterval(() => scheduleRefresh(0), 2000);
        setInterval(() => faults.poll(), 1000);
        setInterval(() => document.querySelectorAll(".countdown").forEach(tickCountdown), 100);
    }

    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
})();
