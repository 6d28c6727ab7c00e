# SPDX-License-Identifier: Apache-2.0
"""Runs every conformance scenario against kcoord and Apache Kafka 4.4.0.

For each profile the scenarios use, one kcoord (KC_TEST_KCOORD_BIN) and
one reference Kafka start on free loopback ports with the profile's
settings; a second kcoord serves the restart runs of restartable
scenarios. Each case runs on both brokers at once; cases run a few at a
time. The last line counts the cases: run, identical, allowlisted,
differing (errors count as differing). Exit 1 on any differing case or a
stale allowlist entry in a full run.

Results go to $KC_TEST_WORK/conformance-results.json (read by
scripts/conformance-report, which writes docs/conformance.md) and the
transcripts of every case that differed to conformance-transcripts.json.

Environment: KC_CONFORMANCE_FILTER (a glob over case ids, e.g.
"classic.*") runs a subset; KC_CONFORMANCE_JOBS cases at a time (4).
"""

import concurrent.futures
import fnmatch
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))

import conformance as cf  # noqa: E402
import kafka_messages  # noqa: E402
import kcoord_harness  # noqa: E402
import profiles  # noqa: E402
import reference_kafka  # noqa: E402


def kcoord_overrides(settings):
    # Drop the harness defaults: the profile gives every setting both get.
    o = {k: None for k in kcoord_harness.DEFAULT_OVERRIDES}
    o.update(settings)
    return o


class BareKcoord(kcoord_harness.Kcoord):
    """kcoord given only the profile's properties, as the reference Kafka
    gets only its server.properties: the sample kcoord.conf the harness
    passes would make every property it spells out a static broker setting
    (ConfigSource STATIC_BROKER_CONFIG in CreateTopics and DescribeConfigs)
    where Kafka reports a default."""

    def command(self):
        cmd = super().command()
        if "--config" in cmd:
            i = cmd.index("--config")
            del cmd[i:i + 2]
        return cmd


class Side:
    def __init__(self, profile):
        settings = profiles.PROFILES[profile]
        self.kc = BareKcoord("conf-" + profile, kcoord_overrides(settings))
        self.kc_restart = BareKcoord("conf-%s-restart" % profile, kcoord_overrides(settings))
        self.ref = reference_kafka.ReferenceKafka(
            "conf-" + profile, dict(settings, **profiles.KAFKA_ONLY,
                                    **getattr(profiles, "KAFKA_ONLY_PROFILE", {}).get(profile, {})))

    def start(self, need_restart):
        self.kc.start()
        if need_restart:
            self.kc_restart.start()
        self.ref.start()

        def restart():
            self.kc_restart.kill()
            self.kc_restart.start()

        def relaunch_kcoord(kill):
            if kill:
                self.kc.kill()
            else:
                self.kc.stop()
            self.kc.start()
        self.brokers = {
            "kcoord": cf.Broker("kcoord", self.kc.port, relaunch=relaunch_kcoord),
            "kafka": cf.Broker("kafka", self.ref.port,
                               relaunch=lambda kill: self.ref.restart(kill=kill)),
            "restart": cf.Broker("kcoord", self.kc_restart.port, restart),
        }

    def close(self, failed):
        for k in (self.kc, self.kc_restart):
            try:
                if k.proc is not None:
                    k.stop()
                k.check_sanitizers()
            except AssertionError as e:
                print("conformance: kcoord %s: %s" % (k.name, e))
                failed = True
            if failed:
                k.dump_logs()
            k.cleanup()
        self.ref.cleanup()
        return failed


def compare(case_id, kc_t, kc_port, ka_t, ka_port, allow):
    a = cf.normalise(kc_t, kc_port)
    b = cf.normalise(ka_t, ka_port)
    diffs = []
    for path, x, y in cf.diff(a, b):
        e = allow.match(case_id, path)
        diffs.append({"path": path, "kcoord": x, "kafka": y,
                      "allowed": e["reason"] if e else None,
                      "open": bool(e and e.get("open"))})
    return a, b, diffs


def main():
    specs = kafka_messages.Specs.load()
    scenarios = cf.load_scenarios()
    flt = os.environ.get("KC_CONFORMANCE_FILTER")
    jobs = int(os.environ.get("KC_CONFORMANCE_JOBS", "4"))
    allow = cf.Allowlist()
    work = os.environ.get("KC_TEST_WORK", ".")

    def may_match(s):
        # A case id is the scenario id, or the id and "@vN".
        return not flt or any(fnmatch.fnmatchcase(c, flt)
                              for c in [s.id] + ["%s@v%d" % (s.id, v) for v in range(20)])

    used = sorted({s.profile for s in scenarios if may_match(s)})
    results = []
    transcripts = {}
    references = {}
    failed = False
    t0 = time.monotonic()
    # One profile at a time: its kcoord and Kafka are stopped before the
    # next profile's start.
    for p in used:
        side = Side(p)
        n_before = len(results)
        try:
            sc_p = [s for s in scenarios if s.profile == p]
            side.start(any(s.restartable for s in sc_p))
            br = side.brokers
            references[p] = {"ready_s": round(side.ref.ready_s, 2),
                             "format_s": round(side.ref.format_s, 2),
                             "rss_kib": side.ref.rss_kib()}
            print("conformance: profile %s: Kafka %s ready in %.2f s (format %.2f s), RSS %s KiB"
                  % (p, reference_kafka.KAFKA_VERSION, side.ref.ready_s, side.ref.format_s,
                     references[p]["rss_kib"]), flush=True)
            r_kc = cf.versions_served(br["kcoord"].port, specs)
            r_ka = cf.versions_served(br["kafka"].port, specs)
            ranges = cf.intersect(r_kc, r_ka)
            cases = []
            for s in sc_p:
                for cid, v in s.cases(ranges):
                    if flt and not fnmatch.fnmatchcase(cid, flt):
                        continue
                    cases.append((cid, s, v))

            def one(item):
                cid, s, v = item
                out = {}

                def run(kind):
                    out[kind] = cf.run_case(s, v, br[kind], specs, ranges)
                th = [threading.Thread(target=run, args=(k,)) for k in ("kcoord", "kafka")]
                for t in th:
                    t.start()
                for t in th:
                    t.join()
                return cid, s, v, out

            # A profile whose scenarios restart both brokers runs its cases
            # one at a time.
            serial = p in getattr(profiles, "SERIAL", ())
            with concurrent.futures.ThreadPoolExecutor(max_workers=1 if serial else jobs) as ex:
                done = list(ex.map(one, cases))
            # Restart runs one at a time: each kills its kcoord.
            for cid, s, v, out in done:
                (kc_t, kc_err), (ka_t, ka_err) = out["kcoord"], out["kafka"]
                a, b, diffs = compare(cid, kc_t, br["kcoord"].port, ka_t, br["kafka"].port, allow)
                res = {"case": cid, "scenario": s.id, "api": s.api, "version": v,
                       "covers": s.covers, "profile": p, "restartable": s.restartable,
                       "steps": len(kc_t), "errors": {}, "diffs": diffs}
                if kc_err:
                    res["errors"]["kcoord"] = kc_err
                if ka_err:
                    res["errors"]["kafka"] = ka_err
                if s.restartable and not kc_err:
                    rt, rerr = cf.run_case(s, v, br["restart"], specs, ranges, restart_run=True)
                    ra = cf.normalise(rt, br["restart"].port)
                    if rerr:
                        res["errors"]["restart"] = rerr
                    for path, x, y in cf.diff(ra, a):
                        res["diffs"].append({"path": "restart" + path, "kcoord": x,
                                             "kafka": y, "allowed": None})
                if res["errors"] or any(d["allowed"] is None for d in diffs + res["diffs"]):
                    res["result"] = "differing"
                elif res["diffs"]:
                    res["result"] = "allowlisted"
                else:
                    res["result"] = "identical"
                if res["result"] != "identical":
                    transcripts[cid] = {"kcoord": a, "kafka": b}
                results.append(res)
        finally:
            any_diff = any(r["result"] == "differing" for r in results[n_before:])
            failed = side.close(any_diff) or failed

    counts = {k: sum(1 for r in results if r["result"] == k)
              for k in ("identical", "allowlisted", "differing")}
    for r in results:
        if r["result"] == "differing":
            print("DIFFERING %s" % r["case"])
            for k, e in r["errors"].items():
                print("  error on %s: %s" % (k, e.strip().replace("\n", "\n    ")))
            for d in r["diffs"][:20]:
                if d["allowed"] is None:
                    print("  %s: kcoord %s, kafka %s"
                          % (d["path"], json.dumps(d["kcoord"])[:300],
                             json.dumps(d["kafka"])[:300]))
    stale = [e for e in allow.entries if e["_used"] == 0]
    if not flt:
        for e in stale:
            print("conformance: stale allowlist entry (matched nothing): %s %s"
                  % (e["scenario"], e["path"]))
    with open(os.path.join(work, "conformance-results.json"), "w", encoding="utf-8") as f:
        json.dump({"kafka_version": reference_kafka.KAFKA_VERSION, "reference": references,
                   "scenarios": len({r["scenario"] for r in results}),
                   "counts": counts, "seconds": round(time.monotonic() - t0, 1),
                   "filter": flt, "results": results}, f, indent=1, default=str)
    with open(os.path.join(work, "conformance-transcripts.json"), "w", encoding="utf-8") as f:
        json.dump(transcripts, f, indent=1, default=str)
    print("conformance: %d scenarios, %d cases run, %d identical, %d allowlisted, %d differing"
          " (%.0f s)" % (len({r["scenario"] for r in results}), len(results),
                         counts["identical"], counts["allowlisted"], counts["differing"],
                         time.monotonic() - t0))
    if counts["differing"] or failed or (stale and not flt) or not results:
        sys.exit(1)


if __name__ == "__main__":
    kcoord_harness.run(main)
