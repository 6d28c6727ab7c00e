// SPDX-License-Identifier: Apache-2.0
// The console in headless Chromium (driven by playwright-core) against a
// running kcoord whose 4-partition topic already holds records:
//   node console_e2e.js ADMIN_URL BOOTSTRAP TOPIC GROUP ODD_GROUP CG_GROUP ST_GROUP LONG_GROUP WORK_DIR
// 0. CG_GROUP, a consumer (KIP-848) group whose first member has not
//    revoked: the grid shows its partitions pending revocation and the
//    second member's target not yet owned, at Reconciling, and the silent
//    first member's session counting down, in the page between two reads
//    and from one read to the next; the events of every group speak of its
//    group epoch; ST_GROUP, a streams group, shows its topology epoch, 4
//    active tasks owned and the topology-description store's epochs (none;
//    -2, put in its view by the test, as uncertain); LONG_GROUP, whose
//    group, client and member ids are about 250 characters long, at 1280,
//    1440 and 1920 px wide (and 1920 with A+): no table wider than its
//    panel, the offsets panel too;
// 1. two kcat consumers (-G GROUP) form a classic group: the groups view
//    lists it (and ODD_GROUP, whose id is markup, as text), the group view
//    shows both members, the state machine at Stable and every partition
//    owned in the grid;
// 2. one consumer is SIGKILLed: the timeline shows its session expiring and
//    the rebalance completing, and the grid gives the survivor every partition;
// 3. the fault form proposes JoinGroup for an error, not every API; a
//    JoinGroup error fault added with the form fails the JoinGroup of a
//    third consumer: the fault is listed, then shown spent on the timeline,
//    /metrics counts the error, and the consumer joins on its retry.
// Every wait is on a condition. On failure a screenshot goes to WORK_DIR.
// KC_CONSOLE_SCREENSHOT=FILE saves the group view after the rebalance (at
// 1440x900), KC_CONSOLE_SCREENSHOT_CG=FILE the consumer group's while it
// reconciles; KC_CONSOLE_SHOTS=DIR saves LONG_GROUP's and GROUP's views at
// each width checked.
"use strict";

const {spawn} = require("child_process");
const fs = require("fs");
const path = require("path");
const {chromium} = require("playwright-core");

const [admin, bootstrap, topic, group, oddGroup, cgGroup, stGroup, longGroup, work] = process.argv.slice(2);
const SIZES = [[1280, 720], [1440, 900], [1920, 1080]];
const WAIT_MS = 90000;
const kcats = [];
let page = null;
let step = "start";

function log(...a) { console.log("console-e2e:", ...a); }

function startKcat(clientId) {
    const err = fs.openSync(path.join(work, "kcat-" + clientId + ".log"), "w");
    const p = spawn("kcat", ["-b", bootstrap, "-G", group, "-q", "-o", "beginning",
                             "-X", "client.id=" + clientId, "-X", "session.timeout.ms=6000",
                             "-X", "heartbeat.interval.ms=500", "-X", "auto.commit.interval.ms=500",
                             topic],
                    {stdio: ["ignore", "ignore", err]});
    kcats.push(p);
    log("started kcat", clientId, "pid", p.pid);
    return p;
}

// Waits until fn (run in the page, with arg) returns a truthy value; returns it.
async function until(what, fn, arg) {
    log("waiting for", what);
    const h = await page.waitForFunction(fn, arg, {timeout: WAIT_MS, polling: 200});
    return h.jsonValue();
}

function assert(cond, msg) { if (!cond) throw new Error("assertion failed: " + msg); }

// The group view's panels wider than the page lets them be: [] when none.
async function overflowing() {
    return page.evaluate(() => [...document.querySelectorAll("main section.panel")]
        .filter(p => p.scrollWidth > p.clientWidth + 1 || p.getBoundingClientRect().right > innerWidth)
        .map(p => (p.querySelector("h2") || p).textContent.slice(0, 40) + ": " + p.scrollWidth + " > " + p.clientWidth));
}

// At each width of SIZES, and on the projector with the larger text (A+),
// no panel of the group view overflows; saved to KC_CONSOLE_SHOTS as
// NAME-WxH[-big].png when set.
async function checkWidths(name) {
    for (const [w, h, big] of SIZES.concat([[1920, 1080, true]])) {
        await page.setViewportSize({width: w, height: h});
        if (big) await page.click("#big");
        await until("the layout at " + w + " px", () => new Promise(r => requestAnimationFrame(() => r(true))));
        const wide = await overflowing();
        const shot = name + "-" + w + "x" + h + (big ? "-big" : "");
        assert(wide.length === 0, shot + ": " + wide.join("; "));
        if (process.env.KC_CONSOLE_SHOTS)
            await page.screenshot({path: path.join(process.env.KC_CONSOLE_SHOTS, shot + ".png"), fullPage: true});
        if (big) await page.click("#big");
    }
    await page.setViewportSize({width: 1440, height: 1000});
}

// The number of seconds in a session countdown ("12.3 s"; "due" is 0).
function secs(text) { return text === "due" ? 0 : parseFloat(text); }

async function main() {
    fs.mkdirSync(work, {recursive: true});
    const browser = await chromium.launch({
        executablePath: process.env.KC_CHROMIUM || "/usr/bin/chromium",
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    const problems = [];
    try {
        page = await browser.newPage({viewport: {width: 1440, height: 1000}});
        page.on("pageerror", (e) => problems.push("page error: " + e.message));
        page.on("console", (m) => { if (m.type() === "error") problems.push("console error: " + m.text()); });
        page.on("requestfailed", (r) => {
            // The event stream is cut when the browser closes; anything else is a failure.
            if (!r.url().includes("/v1/events")) problems.push("request failed: " + r.url());
        });

        step = "groups view";
        await page.goto(admin + "/");
        await until("the odd group id in the groups view",
                    (g) => [...document.querySelectorAll("#groups tbody tr")]
                        .some(r => r.cells[0].textContent === g), oddGroup);
        assert(await page.locator("#groups tbody b, #groups tbody img, #groups tbody script").count() === 0,
               "a group id was parsed as markup");
        assert(await page.locator("#live.on").count() === 1 || await until("the event stream open",
               () => document.querySelector("#live.on")), "live");

        step = "0: a consumer group reconciling";
        await page.selectOption("#filter-type", "consumer");
        await until("only the consumer group under the consumer filter", (g) => {
            const ids = [...document.querySelectorAll("#groups tbody tr")].map(r => r.cells[0].textContent);
            return ids.length === 1 && ids[0] === g;
        }, cgGroup);
        await page.selectOption("#filter-type", "");
        await page.evaluate((g) => { location.hash = "#/group/" + encodeURIComponent(g); }, cgGroup);
        await until("the consumer group's pending revocation and unowned target", () => {
            const t = document.querySelector("#g-type"), st = document.querySelector("#g-state");
            if (!t || t.textContent !== "consumer" || st.textContent !== "Reconciling") return false;
            if (!document.querySelector('#state-machine g.current[data-state="Reconciling"]')) return false;
            const row = (mid) => document.querySelector("#assignment tr[data-member=" + JSON.stringify(mid) + "]");
            const m1 = row("cg-member-1"), m2 = row("cg-member-2");
            if (!m1 || !m2) return false;
            const n = (r, c) => r.querySelectorAll("td.cell." + c).length;
            return n(m1, "owned") === 2 && n(m1, "revoking") === 2 && n(m2, "pending") === 2 &&
                n(m2, "owned") === 0;
        });
        const cd = '#members tr[data-member="cg-member-1"] .countdown';
        const first = secs(await page.locator(cd).textContent());
        assert(first > 0 && first <= 60, "cg-member-1's session within its 60 s: " + first);
        // In the page, between two reads: the same element's text goes down.
        await until("the countdown ticking between reads", (sel) => {
            const e = document.querySelector(sel);
            if (!e) return false;
            if (window.kcCountdown !== e) { window.kcCountdown = e; window.kcCountdownText = e.textContent; return false; }
            return parseFloat(e.textContent) < parseFloat(window.kcCountdownText);
        }, cd);
        // From one read to the next (cg-member-1 is silent): lower still.
        await until("the countdown lower after a new read", (arg) => {
            const e = document.querySelector(arg.sel);
            return e && e !== window.kcCountdown && parseFloat(e.textContent) < arg.first - 1;
        }, {sel: cd, first});
        if (process.env.KC_CONSOLE_SCREENSHOT_CG)
            await page.screenshot({path: process.env.KC_CONSOLE_SCREENSHOT_CG, fullPage: true});
        await page.evaluate(() => { location.hash = "#/"; });
        await until("the consumer group's events with its group epoch in the all-groups timeline", (g) => {
            const li = [...document.querySelectorAll("#timeline li")].filter(l => l.textContent.includes("group " + g + " \u00b7"));
            return li.some(l => /group epoch \d+/.test(l.textContent)) && !li.some(l => l.textContent.includes("generation"));
        }, cgGroup);
        await page.evaluate((g) => { location.hash = "#/group/" + encodeURIComponent(g); }, stGroup);
        await until("the streams group Stable with 4 active tasks owned", () => {
            const t = document.querySelector("#g-type"), te = document.querySelector("#g-topology-epoch");
            if (!t || t.textContent !== "streams" || !te || te.textContent !== "1") return false;
            if (!document.querySelector('#state-machine g.current[data-state="Stable"]')) return false;
            const cells = [...document.querySelectorAll("#assignment td.cell.owned")];
            return cells.length === 4 && cells.every(c => c.textContent === "A") &&
                document.querySelectorAll("#state-machine g[data-state]").length === 6;
        });
        assert(await page.locator("#g-stored-description-epoch").textContent() === "none (-1)" &&
               await page.locator("#g-failed-description-epoch").textContent() === "none (-1)",
               "the store's epochs of a group that pushed nothing");
        await until("the streams group's topology: subtopology 0 reading the topic", (t) => {
            const row = document.querySelector('#topology tr[data-subtopology="0"]');
            return row && !document.querySelector("#topology-panel").hidden &&
                row.cells[1].textContent === t && row.cells[2].textContent === "\u2014" &&
                document.querySelector("#topology caption").textContent === "topology epoch 1";
        }, topic);
        await checkWidths("streams");
        // The -2 of a store operation that may not have finished, as a view gives it.
        const view = "**/v1/groups/" + encodeURIComponent(stGroup);
        await page.route(view, async (route) => {
            const r = await route.fetch();
            const g = await r.json();
            g.stored_description_topology_epoch = -2;
            await route.fulfill({response: r, json: g});
        });
        await until("the stored epoch -2 shown as uncertain", () =>
            document.querySelector("#g-stored-description-epoch").textContent === "uncertain (-2)");
        await page.unroute(view);

        step = "0: very long ids";
        await page.evaluate((g) => { location.hash = "#/group/" + encodeURIComponent(g); }, longGroup);
        await until("the long group's member and its committed offsets", () =>
            document.querySelectorAll("#members tbody tr").length === 1 &&
            document.querySelectorAll("#offsets tbody tr").length > 0);
        const clip = await page.locator("#members tbody td .clip").first();
        assert((await clip.getAttribute("title")).length > 250, "the whole id in the title");
        await checkWidths("long-ids");
        await page.evaluate(() => { location.hash = "#/"; });
        await until("the long group in the groups view, no wider than the page", (g) =>
            [...document.querySelectorAll("#groups tbody tr")].some(r => r.cells[0].textContent === g) &&
            document.querySelector("#groups").getBoundingClientRect().right <= innerWidth, longGroup);

        step = "1: the group forms";
        startKcat("console-a");
        startKcat("console-b");
        await until("the group Stable with 2 members in the groups view", (g) =>
            [...document.querySelectorAll("#groups tbody tr")].some(r => r.cells[0].textContent === g &&
                r.querySelector(".state").textContent === "Stable" &&
                r.querySelector(".members").textContent === "2"), group);
        // The filters: consumer type hides the classic group, classic shows it.
        await page.selectOption("#filter-type", "consumer");
        await until("the type filter to hide the classic group", (g) =>
            ![...document.querySelectorAll("#groups tbody tr")].some(r => r.cells[0].textContent === g), group);
        await page.selectOption("#filter-type", "classic");
        await page.selectOption("#filter-state", "Stable");
        await until("the classic/Stable filter to show it", (g) =>
            [...document.querySelectorAll("#groups tbody tr")].some(r => r.cells[0].textContent === g), group);
        await page.locator("#groups tbody a", {hasText: group}).first().click();
        await until("the group view", (g) => document.querySelector("#group-head h2") &&
                    document.querySelector("#group-head h2").textContent === "Group " + g, group);
        const formed = await until("2 members, Stable, every partition owned", () => {
            const rows = [...document.querySelectorAll("#members tbody tr")];
            const state = document.querySelector("#g-state");
            const owned = [...document.querySelectorAll("#assignment td.cell.owned")].map(c => c.dataset.key);
            const perMember = [...document.querySelectorAll("#assignment tbody tr")]
                .map(r => r.querySelectorAll("td.cell.owned").length);
            if (rows.length !== 2 || !state || state.textContent !== "Stable") return null;
            if (new Set(owned).size !== 4 || owned.length !== 4 || perMember.some(n => n === 0)) return null;
            if (!document.querySelector('#state-machine g.current[data-state="Stable"]')) return null;
            return rows.map(r => ({member: r.dataset.member, client: r.cells[2].textContent}));
        });
        log("group formed:", JSON.stringify(formed));
        const labels = await page.evaluate(() => [...document.querySelectorAll("#assignment tbody td.label")].map(td => td.textContent));
        assert(labels.every(l => (l.match(/console-[ab]/g) || []).length === 1),
               "each grid label names its client once: " + JSON.stringify(labels));
        const b = formed.find(m => m.client === "console-b");
        const a = formed.find(m => m.client === "console-a");
        assert(a && b, "members by client id: " + JSON.stringify(formed));
        await until("both joins and a completed rebalance on the timeline", (ids) => {
            const li = [...document.querySelectorAll("#timeline li")];
            return ids.every(id => li.some(l => l.dataset.type === "member_joined" && l.textContent.includes(id))) &&
                li.some(l => l.dataset.type === "rebalance_completed");
        }, [a.member, b.member]);

        step = "2: a member is killed";
        kcats[1].kill("SIGKILL");
        await until("the session expiry of console-b, then a completed rebalance", (mid) => {
            const li = [...document.querySelectorAll("#timeline li")];
            const exp = li.findIndex(l => l.dataset.type === "session_expired" && l.textContent.includes(mid));
            return exp >= 0 && li.slice(exp + 1).some(l => l.dataset.type === "rebalance_completed");
        }, b.member);
        await until("console-a alone owning every partition", (mid) => {
            const rows = [...document.querySelectorAll("#members tbody tr")];
            const grid = [...document.querySelectorAll("#assignment tbody tr")];
            return rows.length === 1 && rows[0].dataset.member === mid && grid.length === 1 &&
                grid[0].querySelectorAll("td.cell.owned").length === 4 &&
                document.querySelector("#g-state").textContent === "Stable";
        }, a.member);
        await until("the assignment change on the timeline", (arg) =>
            [...document.querySelectorAll("#timeline li")].some(l => l.dataset.type === "assignment_changed" &&
                l.textContent.includes(arg.mid) && l.textContent.includes("now owns " +
                    [0, 1, 2, 3].map(p => arg.topic + "-" + p).join(","))), {mid: a.member, topic});
        await checkWidths("classic");
        if (process.env.KC_CONSOLE_SCREENSHOT) {
            await page.setViewportSize({width: 1440, height: 900});
            await page.screenshot({path: process.env.KC_CONSOLE_SCREENSHOT, fullPage: true});
            await page.setViewportSize({width: 1440, height: 1000});
            log("saved", process.env.KC_CONSOLE_SCREENSHOT);
        }

        step = "3: a fault from the form";
        await page.click("#nav-faults");
        await page.locator("#fault-form").waitFor({timeout: WAIT_MS});
        await page.selectOption("#f-type", "stall");
        assert(!(await page.isVisible("#f-api")) && await page.isVisible("#f-duration-ms"),
               "a stall's form shows only its duration");
        await page.selectOption("#f-type", "error");
        assert(await page.isVisible("#f-api") && await page.isVisible("#f-error") &&
               !(await page.isVisible("#f-delay-ms")), "an error's form shows the API and error code");
        assert(await page.inputValue("#f-api") === "11" &&
               await page.locator('#f-api option[value=""]').isDisabled(),
               "an error is proposed for JoinGroup, not for every API");
        await page.selectOption("#f-api", "11");
        await page.selectOption("#f-error", "15");
        assert(await page.getAttribute("#f-count", "min") === "1", "a count of at least 1, as kcoord asks");
        await page.fill("#f-count", "1");
        await page.fill("#f-group", group);
        await page.click("#f-add");
        await until("the form to report the fault added", () =>
            /^added #\d+ error on JoinGroup \(11\)/.test(document.querySelector("#fault-msg").textContent));
        await until("the fault listed, not hit yet", () => {
            const rows = [...document.querySelectorAll("#faults tbody tr")];
            return rows.length === 1 && rows[0].cells[1].textContent === "error" &&
                rows[0].cells[9].textContent === "0";
        });
        const before = await page.evaluate(() => document.querySelectorAll("#timeline li").length);
        startKcat("console-c");
        await page.evaluate((g) => { location.hash = "#/group/" + encodeURIComponent(g); }, group);
        await until("the spent fault on the group's timeline", () =>
            [...document.querySelectorAll("#timeline li")].some(l => l.dataset.type === "fault" &&
                l.textContent.includes("spent") && l.textContent.includes("JoinGroup (11)") &&
                l.textContent.includes("COORDINATOR_NOT_AVAILABLE (15)") &&
                l.textContent.includes("after 1 hit: it applied to every request")));
        const metrics = await (await fetch(admin + "/metrics")).text();
        const m = metrics.match(/^kcoord_errors_total\{api="JoinGroup",api_key="11",code="15"\} (\d+)$/m);
        assert(m && Number(m[1]) === 1, "JoinGroup error 15 counted once: " + (m ? m[0] : "absent"));
        await until("console-c in the group after its retry, 2 members Stable", () => {
            const rows = [...document.querySelectorAll("#members tbody tr")];
            return rows.length === 2 && rows.some(r => r.cells[2].textContent === "console-c") &&
                document.querySelector("#g-state").textContent === "Stable";
        });
        await until("console-c's join after the fault on the timeline", () => {
            const li = [...document.querySelectorAll("#timeline li")];
            const f = li.findIndex(l => l.dataset.type === "fault" && l.textContent.includes("spent"));
            return f >= 0 && li.slice(f + 1).some(l => l.dataset.type === "member_joined");
        });

        step = "timeline pause";
        await page.click("#timeline .tl-pause");
        const held = await page.evaluate(() => document.querySelectorAll("#timeline li").length);
        kcats[2].kill("SIGKILL");
        await until("events held while paused", () =>
            /^\d+ new while paused$/.test(document.querySelector("#timeline .pending-count").textContent));
        assert(await page.evaluate(() => document.querySelectorAll("#timeline li").length) === held,
               "lines were added while paused");
        await page.click("#timeline .tl-pause");
        await until("the held events shown after resume", (n) =>
            document.querySelectorAll("#timeline li").length > n &&
            document.querySelector("#timeline .pending-count").textContent === "", held);
        step = "clearing a fault from the list";
        await page.click("#nav-faults");
        await page.selectOption("#f-type", "delay");
        await page.fill("#f-delay-ms", "1");
        await page.selectOption("#f-api", "16");
        await page.click("#f-add");
        await until("the delay fault listed", () =>
            [...document.querySelectorAll("#faults tbody tr")].some(r => r.cells[1].textContent === "delay"));
        await page.locator("#faults tbody tr", {hasText: "delay"}).locator("button").click();
        await until("the delay fault gone and its clearing on the timeline", () =>
            document.querySelectorAll("#faults tbody tr").length === 0 &&
            [...document.querySelectorAll("#timeline li")].some(l => l.dataset.type === "fault" &&
                l.textContent.startsWith(l.querySelector(".t").textContent + "fault") &&
                l.textContent.includes("cleared") && l.textContent.includes("delay on ListGroups (16)")));
        const left = await (await fetch(admin + "/v1/faults")).json();
        assert(left.faults.length === 0, "faults left in kcoord: " + JSON.stringify(left));

        assert(problems.length === 0, "the page reported problems: " + problems.join("; "));
        log("timeline lines before the fault:", before);
        console.log("console-e2e: OK");
    } catch (e) {
        if (page) {
            const shot = path.join(work, "console-failure.png");
            try { await page.screenshot({path: shot, fullPage: true}); log("screenshot:", shot); } catch (_) {}
            try {
                log("timeline:\n" + await page.evaluate(() =>
                    [...document.querySelectorAll("#timeline li")].map(l => l.textContent).join("\n")));
            } catch (_) {}
        }
        if (problems.length) log("page problems:", problems.join("; "));
        throw new Error("step " + step + ": " + e.message);
    } finally {
        await browser.close();
        for (const p of kcats) if (p.exitCode === null) p.kill("SIGKILL");
    }
}

main().catch((e) => { console.error(e.stack || e); process.exit(1); });
