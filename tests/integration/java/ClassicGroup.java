// SPDX-License-Identifier: Apache-2.0
// Kafka's Java KafkaConsumer with group.protocol=classic, for
// test_java_classic_consumer.py: one JVM hosting named consumers (a thread
// each), a producer and an admin client, driven by commands on stdin, one
// a line; what happens is printed on stdout, one event a line:
//
//   consumer NAME BOOTSTRAP GROUP TOPIC ASSIGNOR INSTANCE PACE_MS WAIT
//       starts consumer NAME (ASSIGNOR: range or cooperative-sticky;
//       INSTANCE: its group.instance.id, "-" for a dynamic member; PACE_MS:
//       time it spends on each batch of at most 5 records). WAIT "wait":
//       it looks up its coordinator first (committed() of partition 0),
//       prints "NAME coordinator" and subscribes only on "go NAME".
//   go NAME        lets a waiting consumer subscribe
//   state NAME     prints "NAME state GENERATION MEMBER_ID PARTITIONS"
//   close NAME     KafkaConsumer.close() (a static member stays in the
//                  group), then prints "NAME closed"
//   produce BOOTSTRAP TOPIC PARTITIONS N
//                  N records to each partition (acks=all), "produced"
//   offsets BOOTSTRAP GROUP
//                  listConsumerGroupOffsets: "offsets T-P=OFFSET,..."
//   partitions BOOTSTRAP TOPIC N
//                  createPartitions to N: "partitions N"
//   quit
//
// A consumer polls in a loop and commits the position of its partitions
// with commitSync whenever it moved or half a second passed. It prints
//   NAME assigned GEN P,P,..    onPartitionsAssigned (GEN: the generation
//   NAME revoked GEN P,P,..     groupMetadata() gives inside the callback)
//   NAME lost GEN P,P,..
//   NAME owns GEN P,P,..        the whole assignment after each callback
//   NAME fetched P OFFSET       the first record of a partition after it
//                               was assigned
//   NAME committed P=OFFSET,..  a commitSync that returned
//   NAME commit-failed CLASS    one that threw
//   NAME poll-error CLASS MESSAGE
// P is the partition number (one topic per consumer).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ClassicGroup {
    static synchronized void out(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static String parts(Collection<TopicPartition> tps) {
        String s = new TreeSet<>(tps.stream().map(TopicPartition::partition)
                .collect(Collectors.toList())).stream().map(String::valueOf)
                .collect(Collectors.joining(","));
        return s.isEmpty() ? "-" : s;
    }

    static final class Member implements Runnable, ConsumerRebalanceListener {
        final String name, topic;
        final long paceMs;
        final KafkaConsumer<String, String> c;
        final CountDownLatch go = new CountDownLatch(1);
        final boolean waitFirst;
        volatile boolean stop;
        final CountDownLatch closed = new CountDownLatch(1);
        final Set<Integer> fresh = new HashSet<>();
        volatile String state = "-1 - -";
        final Thread thread = new Thread(this);

        Member(String[] a) {
            name = a[1];
            topic = a[4];
            paceMs = Long.parseLong(a[7]);
            waitFirst = a[8].equals("wait");
            Properties p = new Properties();
            p.put("bootstrap.servers", a[2]);
            p.put("group.id", a[3]);
            p.put("group.protocol", "classic");
            p.put("client.id", name);
            p.put("partition.assignment.strategy", a[5].equals("range")
                  ? RangeAssignor.class.getName() : CooperativeStickyAssignor.class.getName());
            if (!a[6].equals("-"))
                p.put("group.instance.id", a[6]);
            p.put("session.timeout.ms", "30000");
            p.put("heartbeat.interval.ms", "1000");
            p.put("max.poll.interval.ms", "60000");
            p.put("metadata.max.age.ms", "1000");
            // While the broker is down the client would otherwise
            // rebootstrap, replacing its metadata by the bootstrap node's
            // (no topics): the leader then sees its subscription's
            // partitions change and rejoins, depending on when its poll
            // loop runs. The kill test is about the coordinator.
            p.put("metadata.recovery.strategy", "none");
            p.put("max.poll.records", "5");
            p.put("enable.auto.commit", "false");
            p.put("auto.offset.reset", "earliest");
            p.put("key.deserializer", StringDeserializer.class.getName());
            p.put("value.deserializer", StringDeserializer.class.getName());
            c = new KafkaConsumer<>(p);
        }

        void event(String what, Collection<TopicPartition> tps) {
            int gen = c.groupMetadata().generationId();
            out(name + " " + what + " " + gen + " " + parts(tps));
        }

        void owns() {
            int gen = c.groupMetadata().generationId();
            String owned = parts(c.assignment());
            state = gen + " " + c.groupMetadata().memberId() + " " + owned;
            out(name + " owns " + gen + " " + owned);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> tps) {
            for (TopicPartition tp : tps)
                fresh.add(tp.partition());
            event("assigned", tps);
            owns();
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> tps) {
            if (tps.isEmpty())
                return;
            event("revoked", tps);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> tps) {
            event("lost", tps);
        }

        @Override
        public void run() {
            try {
                if (waitFirst) {
                    c.committed(Set.of(new TopicPartition(topic, 0)), Duration.ofSeconds(60));
                    out(name + " coordinator");
                    go.await();
                }
                c.subscribe(List.of(topic), this);
                Map<TopicPartition, Long> lastCommitted = new HashMap<>();
                long lastCommit = 0;
                while (!stop) {
                    ConsumerRecords<String, String> rs;
                    try {
                        rs = c.poll(Duration.ofMillis(100));
                    } catch (Exception e) {
                        out(name + " poll-error " + e.getClass().getName() + " " + e.getMessage());
                        continue;
                    }
                    for (ConsumerRecord<String, String> r : rs) {
                        if (fresh.remove(r.partition()))
                            out(name + " fetched " + r.partition() + " " + r.offset());
                    }
                    if (!rs.isEmpty() && paceMs > 0)
                        Thread.sleep(paceMs);
                    Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>(
                        (x, y) -> Integer.compare(x.partition(), y.partition()));
                    Map<TopicPartition, Long> now = new HashMap<>();
                    for (TopicPartition tp : c.assignment()) {
                        long pos = c.position(tp, Duration.ofSeconds(5));
                        offsets.put(tp, new OffsetAndMetadata(pos));
                        now.put(tp, pos);
                    }
                    long t = System.currentTimeMillis();
                    if (offsets.isEmpty() || (now.equals(lastCommitted) && t - lastCommit < 500))
                        continue;
                    lastCommit = t;
                    try {
                        c.commitSync(offsets, Duration.ofSeconds(3));
                        lastCommitted = now;
                        out(name + " committed " + offsets.entrySet().stream()
                            .map(e -> e.getKey().partition() + "=" + e.getValue().offset())
                            .collect(Collectors.joining(",")));
                    } catch (Exception e) {
                        out(name + " commit-failed " + e.getClass().getName());
                    }
                }
            } catch (Exception e) {
                out(name + " error " + e.getClass().getName() + " " + e.getMessage());
            } finally {
                try {
                    c.close();
                } catch (Exception e) {
                    out(name + " close-error " + e.getClass().getName() + " " + e.getMessage());
                }
                out(name + " closed");
                closed.countDown();
            }
        }
    }

    static Properties client(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        return p;
    }

    public static void main(String[] argv) throws Exception {
        Map<String, Member> members = new ConcurrentHashMap<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            String[] a = line.trim().split(" ");
            try {
                switch (a[0]) {
                case "consumer": {
                    Member m = new Member(a);
                    members.put(m.name, m);
                    m.thread.start();
                    break;
                }
                case "go":
                    members.get(a[1]).go.countDown();
                    break;
                case "state":
                    out(a[1] + " state " + members.get(a[1]).state);
                    break;
                case "close": {
                    Member m = members.remove(a[1]);
                    m.stop = true;
                    m.go.countDown();
                    m.closed.await();
                    break;
                }
                case "produce":
                    produce(a[1], a[2], Integer.parseInt(a[3]), Integer.parseInt(a[4]));
                    break;
                case "offsets":
                    offsets(a[1], a[2]);
                    break;
                case "partitions":
                    try (Admin admin = Admin.create(client(a[1]))) {
                        admin.createPartitions(Map.of(a[2], NewPartitions.increaseTo(
                            Integer.parseInt(a[3])))).all().get();
                    }
                    out("partitions " + a[3]);
                    break;
                case "quit":
                    for (Member m : new ArrayList<>(members.values())) {
                        m.stop = true;
                        m.go.countDown();
                        m.closed.await();
                    }
                    System.exit(0);
                    break;
                default:
                    throw new IllegalArgumentException("unknown command " + a[0]);
                }
            } catch (Exception e) {
                out("error " + a[0] + " " + e.getClass().getName() + " " + e.getMessage());
            }
        }
        System.exit(0);
    }

    static void produce(String bootstrap, String topic, int partitions, int n) throws Exception {
        Properties p = client(bootstrap);
        p.put("acks", "all");
        // Kafka's broker may answer NOT_LEADER_OR_FOLLOWER to the first batches
        // to a partition just created; an idempotent producer retrying them
        // can then loop on OUT_OF_ORDER_SEQUENCE_NUMBER. One batch in flight
        // keeps the records in order without it.
        p.put("enable.idempotence", "false");
        p.put("max.in.flight.requests.per.connection", "1");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < n; i++)
                for (int q = 0; q < partitions; q++)
                    sent.add(pr.send(new ProducerRecord<>(topic, q, null, "v" + i)));
            for (Future<RecordMetadata> f : sent)
                f.get();
        }
        out("produced");
    }

    static void offsets(String bootstrap, String group) throws Exception {
        try (Admin admin = Admin.create(client(bootstrap))) {
            Map<TopicPartition, OffsetAndMetadata> got =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            out("offsets " + new TreeMap<>(got.entrySet().stream().collect(Collectors.toMap(
                e -> e.getKey().partition(), e -> e.getValue().offset()))).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(",")));
        }
    }
}
