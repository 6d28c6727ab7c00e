// SPDX-License-Identifier: Apache-2.0
// KafkaJS 2-member consumer group against kcoord: both members share a
// 4-partition topic, every record is consumed exactly once and committed,
// then one member leaves and the other takes over all partitions.
//
// Usage: node group.js BOOTSTRAP [--restart]   (exits 0 and prints
// "kafkajs: OK" on success). With --restart, once the first records are
// consumed and committed it prints "kafkajs: restart now" and waits for a line
// on stdin (the broker has been restarted on the same data), then checks that
// both members consume the next records exactly once from where they were.
// Every wait polls a condition with a generous deadline; nothing sleeps for a
// fixed time to let something happen.
'use strict';

const { Kafka, logLevel } = require('kafkajs');

const BOOTSTRAP = process.argv[2];
const RESTART = process.argv.includes('--restart');
const TOPIC = 'kjs-orders';
const GROUP = 'kjs-group';
const PARTITIONS = 4;
const PER_PHASE = 200;
const WAIT_MS = 90000;

function stdinLine() {
  return new Promise((resolve) => {
    let buf = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) {
        process.stdin.pause();
        resolve(buf);
      }
    });
  });
}

function fail(msg) {
  throw new Error(msg);
}

async function waitFor(cond, what, state) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() >= deadline) {
      fail(`timed out after ${WAIT_MS / 1000}s waiting for ${what}` +
           (state ? `; last seen: ${JSON.stringify(state())}` : ''));
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

// One group member: its latest assignment (from GROUP_JOIN) and the values
// it consumed, recorded after their offset commit was acknowledged.
class Member {
  constructor(kafka, name) {
    this.name = name;
    this.assignment = [];
    this.joins = 0;
    this.consumed = [];
    this.consumer = kafka.consumer({
      groupId: GROUP,
      sessionTimeout: 10000,
      rebalanceTimeout: 20000,
      heartbeatInterval: 500,
      maxWaitTimeInMs: 200,
      retry: { retries: 10 },
    });
    const { GROUP_JOIN } = this.consumer.events;
    this.consumer.on(GROUP_JOIN, (e) => {
      this.joins += 1;
      this.assignment = (e.payload.memberAssignment[TOPIC] || []).slice().sort();
    });
  }

  async start() {
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const next = (BigInt(message.offset) + 1n).toString();
        await this.consumer.commitOffsets([{ topic: TOPIC, partition, offset: next }]);
        this.consumed.push({ value: message.value.toString(), partition });
      },
    });
  }
}

function splitCovers(members) {
  const seen = new Set();
  for (const m of members) {
    if (m.assignment.length === 0) return false;
    for (const p of m.assignment) {
      if (seen.has(p)) return false;
      seen.add(p);
    }
  }
  return seen.size === PARTITIONS;
}

async function produce(producer, phase) {
  const messages = [];
  for (let i = 0; i < PER_PHASE; i++) {
    messages.push({ partition: i % PARTITIONS, key: `k${i}`, value: `${phase}-${i}` });
  }
  await producer.send({ topic: TOPIC, acks: -1, messages });
}

function countValues(members) {
  const counts = new Map();
  for (const m of members) {
    for (const c of m.consumed) counts.set(c.value, (counts.get(c.value) || 0) + 1);
  }
  return counts;
}

function checkExactlyOnce(members, phases) {
  const counts = countValues(members);
  const want = phases.length * PER_PHASE;
  for (const [v, n] of counts) {
    if (n !== 1) fail(`value ${v} consumed ${n} times`);
  }
  if (counts.size !== want) fail(`consumed ${counts.size} distinct values, want ${want}`);
  for (const phase of phases) {
    for (let i = 0; i < PER_PHASE; i++) {
      if (!counts.has(`${phase}-${i}`)) fail(`value ${phase}-${i} never consumed`);
    }
  }
}

async function committedEqualsEnd(admin) {
  const ends = await admin.fetchTopicOffsets(TOPIC);
  const committed = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
  const byPart = new Map(committed[0].partitions.map((p) => [p.partition, p.offset]));
  for (const e of ends) {
    if (byPart.get(e.partition) !== e.offset) return false;
  }
  return true;
}

async function main() {
  if (!BOOTSTRAP) fail('usage: node group.js HOST:PORT');
  const kafka = new Kafka({
    clientId: 'kcoord-kafkajs',
    brokers: [BOOTSTRAP],
    logLevel: logLevel.WARN,
    connectionTimeout: 10000,
    requestTimeout: 30000,
    retry: { retries: 10 },
  });
  const admin = kafka.admin();
  // Idempotent: InitProducerId, then batches with producer id and sequences.
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await admin.connect();
  const created = await admin.createTopics({
    topics: [{ topic: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1 }],
    waitForLeaders: true,
  });
  if (!created) fail('createTopics reported the topic as already there');
  await producer.connect();

  const a = new Member(kafka, 'a');
  const b = new Member(kafka, 'b');
  await a.start();
  await waitFor(() => a.assignment.length === PARTITIONS, 'member a alone to own all partitions',
                () => a.assignment);
  await b.start();
  await waitFor(() => splitCovers([a, b]), 'a and b to split the partitions',
                () => [a.assignment, b.assignment]);

  // Phase 1: both members consume, each record once, each commit acknowledged.
  await produce(producer, 'p1');
  await waitFor(() => countValues([a, b]).size >= PER_PHASE, 'phase 1 records consumed',
                () => [a.consumed.length, b.consumed.length]);
  checkExactlyOnce([a, b], ['p1']);
  for (const m of [a, b]) {
    const parts = new Set(m.consumed.map((c) => c.partition));
    if (parts.size === 0) fail(`member ${m.name} consumed nothing`);
    for (const p of parts) {
      if (!m.assignment.includes(p)) fail(`member ${m.name} consumed unassigned partition ${p}`);
    }
  }
  await waitFor(() => committedEqualsEnd(admin), 'committed offsets to reach the log end');
  let seen = null;
  await waitFor(async () => {
    const g = (await admin.describeGroups([GROUP])).groups[0];
    seen = [g.state, g.members.length];
    return g.state === 'Stable' && g.members.length === 2;
  }, 'DescribeGroups to show Stable with 2 members', () => seen);

  const phases = ['p1'];
  if (RESTART) {
    // kcoord restarts on the same data: the group and its offsets are
    // replayed; both members carry on (rejoining if told to) and resume from
    // their committed offsets.
    console.log('kafkajs: restart now');
    await stdinLine();
    await produce(producer, 'r');
    phases.push('r');
    await waitFor(() => countValues([a, b]).size >= phases.length * PER_PHASE,
                  'records produced after the restart consumed',
                  () => [a.consumed.length, b.consumed.length]);
    checkExactlyOnce([a, b], phases);
    await waitFor(() => committedEqualsEnd(admin), 'committed offsets at the log end after the restart');
    await waitFor(async () => {
      const g = (await admin.describeGroups([GROUP])).groups[0];
      seen = [g.state, g.members.length];
      return g.state === 'Stable' && g.members.length === 2 && splitCovers([a, b]);
    }, 'the group to be Stable with 2 members after the restart',
    () => [seen, a.assignment, b.assignment]);
  }

  // b leaves (LeaveGroup); a takes over every partition and resumes from
  // b's committed offsets, so nothing is consumed twice.
  const joinsBefore = a.joins;
  await b.consumer.disconnect();
  await waitFor(() => a.joins > joinsBefore && a.assignment.length === PARTITIONS,
                'a to take over all partitions after b left', () => a.assignment);
  await produce(producer, 'p2');
  phases.push('p2');
  await waitFor(() => countValues([a, b]).size >= phases.length * PER_PHASE,
                'phase 2 records consumed', () => [a.consumed.length, b.consumed.length]);
  checkExactlyOnce([a, b], phases);
  await waitFor(() => committedEqualsEnd(admin), 'committed offsets to reach the log end again');

  await a.consumer.disconnect();
  await waitFor(async () => {
    const g = (await admin.describeGroups([GROUP])).groups[0];
    seen = [g.state, g.members.length];
    return g.state === 'Empty' && g.members.length === 0;
  }, 'DescribeGroups to show Empty after both left', () => seen);
  await producer.disconnect();
  await admin.disconnect();
  console.log('kafkajs: OK');
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`kafkajs: FAIL: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  },
);
