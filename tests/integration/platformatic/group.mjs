// SPDX-License-Identifier: Apache-2.0
// @platformatic/kafka consumers with groupProtocol 'consumer' (KIP-848,
// ConsumerGroupHeartbeat) against kcoord: three members share a 6-partition
// topic; the server-side assignor gives each two partitions, never one
// partition to two members; every produced record is consumed; when one
// member leaves, the two others take over its partitions.
//
// Usage: node group.mjs BOOTSTRAP   (exits 0 and prints "platformatic: OK").
// Every wait polls a condition with a generous deadline.
import { Admin, Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';

const [host, port] = process.argv[2].split(':');
const BROKERS = [`${host}:${port}`];
const TOPIC = 'pk-orders';
const GROUP = 'pk-group';
const PARTITIONS = 6;
const RECORDS = 60;
const WAIT_MS = 90000;

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

class Member {
  constructor(name) {
    this.name = name;
    this.values = [];
    this.consumer = new Consumer({
      clientId: name,
      groupId: GROUP,
      groupProtocol: 'consumer',
      bootstrapBrokers: BROKERS,
      deserializers: stringDeserializers,
      maxWaitTime: 200,
    });
  }

  async start() {
    this.stream = await this.consumer.consume({
      topics: [TOPIC],
      mode: 'committed',
      fallbackMode: 'earliest',
      autocommit: 100,
    });
    this.stream.on('data', (m) => this.values.push(m.value));
    this.stream.on('error', (e) => console.error(`${this.name}: stream error`, e));
  }

  // The partitions of TOPIC this member holds now.
  owned() {
    const a = (this.consumer.assignments || []).find((x) => x.topic === TOPIC);
    return a ? [...a.partitions].sort((x, y) => x - y) : [];
  }

  async close() {
    await this.stream.close();
    await this.consumer.close(true);
  }
}

// The members' partitions when they cover the topic exactly once and each
// member has between lo and hi of them, else null.
function spread(members, lo, hi) {
  const seen = new Map();
  for (const m of members) {
    const o = m.owned();
    if (o.length < lo || o.length > hi) return null;
    for (const p of o) {
      if (seen.has(p)) fail(`partition ${p} owned by ${seen.get(p)} and ${m.name}`);
      seen.set(p, m.name);
    }
  }
  return seen.size === PARTITIONS ? Object.fromEntries(members.map((m) => [m.name, m.owned()])) : null;
}

async function main() {
  const admin = new Admin({ clientId: 'pk-admin', bootstrapBrokers: BROKERS });
  await admin.createTopics({ topics: [TOPIC], partitions: PARTITIONS, replicas: 1 });
  await admin.close();

  const producer = new Producer({ clientId: 'pk-producer', bootstrapBrokers: BROKERS,
                                  serializers: stringSerializers });
  const messages = [];
  for (let i = 0; i < RECORDS; i++) {
    messages.push({ topic: TOPIC, partition: i % PARTITIONS, key: `k${i}`, value: `v${i}` });
  }
  await producer.send({ messages, acks: 1 });
  await producer.close();

  const members = [new Member('pk-a'), new Member('pk-b'), new Member('pk-c')];
  for (const m of members) await m.start();

  const state = () => members.map((m) => [m.name, m.owned(), m.values.length]);
  const split = await waitFor(() => spread(members, 2, 2), 'two partitions per member', state);
  console.log('platformatic: assignment', JSON.stringify(split));
  await waitFor(() => new Set(members.flatMap((m) => m.values)).size === RECORDS,
                `all ${RECORDS} records consumed`, state);
  const all = new Set(members.flatMap((m) => m.values));
  for (let i = 0; i < RECORDS; i++) if (!all.has(`v${i}`)) fail(`record v${i} not consumed`);

  // One member leaves (ConsumerGroupHeartbeat epoch -1); the others take over.
  const gone = members.pop();
  await gone.close();
  const after = await waitFor(() => spread(members, 3, 3), 'three partitions per remaining member',
                              state);
  console.log('platformatic: after a leave', JSON.stringify(after));
  for (const m of members) await m.close();
  console.log('platformatic: OK');
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
