// SPDX-License-Identifier: Apache-2.0
// Kafka's Java producer and consumer 4.4 (the reference classpath) in
// transactions, for test_java_transactions.py, run as a single-file program:
//
//   TxnCheck BOOTSTRAP IN OUT GROUP TXN_ID RECORDS
//
// IN, OUT and OUT + "-timeout" exist with two partitions each. In one JVM, one step after the
// other, it prints what the clients saw, one "KEY VALUE..." line each:
//
//   1. consume-transform-produce: RECORDS plain records v0.. go to IN
//      (partition i % 2); a read_committed consumer of GROUP
//      (group.protocol=consumer) reads them and a producer with TXN_ID writes
//      "t-" + value to the same partition of OUT, sending the offsets after
//      the records it transformed with sendOffsetsToTransaction(offsets,
//      groupMetadata()) and committing every 5 records:
//        ctp_commits N                the transactions committed
//        ctp_committed P0 P1          the group's committed offsets of IN
//   2. an aborted transaction of 5 records "aborted-i" to OUT:
//        committed_values V...        OUT read with read_committed, sorted
//        uncommitted_aborted N        aborted records read_uncommitted sees
//   3. a zombie: the producer sends "zombie" in a transaction, a second
//      producer with TXN_ID initialises, the first one's commit fails:
//        zombie_commit CLASS          the exception commitTransaction threw
//        zombie_send CLASS            what a send of the zombie then throws
//      the second producer commits "after-zombie":
//        final_values V...            OUT read with read_committed, sorted
//   4. a transaction past its timeout: a producer with TXN_ID + "-timeout"
//      and transaction.timeout.ms=3000 sends "expired" to partition 0 of
//      OUT + "-timeout" and waits until the broker has aborted its
//      transaction (the last stable offset reached the high watermark),
//      then prints what each step throws (its class, or "none"):
//        timeout_commit CLASS         commitTransaction
//        timeout_abort CLASS          abortTransaction after it
//        timeout_next CLASS           a new transaction ("next") committed
//        timeout_values V...          OUT read with read_committed, sorted
//
//   TxnCheck BOOTSTRAP commits IN OUT GROUP TXN_ID RECORDS TAG...
//
// For each TAG, when stdin reads "send", a transaction of RECORDS records
// "TAG-i" to OUT (partition i % 2) and GROUP's offsets of IN at 5 times the
// TAG's position (1, 2..) on both partitions: prints "ready TAG" once the
// records are acknowledged, commits when stdin reads "commit" and prints
// "committed TAG" or "error TAG CLASS". Then:
//        offsets P0 P1                GROUP's committed offsets of IN
//        values V...                  OUT read with read_committed, sorted
//
// Errors print "error CLASS: MESSAGE" and exit 1.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class TxnCheck {
    static final Duration DEADLINE = Duration.ofSeconds(120);
    static String bootstrap;

    public static void main(String[] a) throws Exception {
        try {
            bootstrap = a[0];
            if (a[1].equals("commits")) {
                commits(a[2], a[3], a[4], a[5], Integer.parseInt(a[6]),
                        List.of(a).subList(7, a.length));
            } else {
                run(a[1], a[2], a[3], a[4], Integer.parseInt(a[5]));
            }
        } catch (Exception e) {
            System.out.println("error " + e.getClass().getName() + ": " + e.getMessage());
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static Properties base() {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        return p;
    }

    static KafkaProducer<String, String> producer(String txnId) {
        return producer(txnId, 60000);
    }

    static KafkaProducer<String, String> producer(String txnId, int timeoutMs) {
        Properties p = base();
        if (txnId != null) {
            p.put("transactional.id", txnId);
            p.put("transaction.timeout.ms", String.valueOf(timeoutMs));
        }
        p.put("acks", "all");
        p.put("max.block.ms", String.valueOf(DEADLINE.toMillis()));
        KafkaProducer<String, String> prod = new KafkaProducer<>(p, new StringSerializer(),
                                                                 new StringSerializer());
        if (txnId != null) {
            prod.initTransactions();
        }
        return prod;
    }

    static KafkaConsumer<String, String> consumer(String group, String isolation) {
        Properties p = base();
        p.put("group.id", group);
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        p.put("isolation.level", isolation);
        p.put("group.protocol", "consumer");
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    static List<TopicPartition> partitions(String topic) {
        return List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
    }

    /** Every value of topic from its start up to its end offsets (the last
     *  stable offsets under read_committed), read with an assigned consumer. */
    static List<String> readAll(String topic, String isolation) {
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer("reader-" + System.nanoTime(), isolation)) {
            List<TopicPartition> tps = partitions(topic);
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps, DEADLINE);
            long deadline = System.currentTimeMillis() + DEADLINE.toMillis();
            while (tps.stream().anyMatch(tp -> c.position(tp, DEADLINE) < end.get(tp))) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("reading " + topic + " to " + end);
                }
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.add(r.value());
                }
            }
        }
        Collections.sort(out);
        return out;
    }

    interface Step {
        void run() throws Exception;
    }

    /** The class of what step throws (the cause of an ExecutionException), or "none". */
    static String thrown(Step step) {
        try {
            step.run();
            return "none";
        } catch (ExecutionException e) {
            return e.getCause().getClass().getName();
        } catch (Exception e) {
            return e.getClass().getName();
        }
    }

    static void timeout(String out, String txnId) throws Exception {
        KafkaProducer<String, String> p = producer(txnId, 3000);
        p.beginTransaction();
        p.send(new ProducerRecord<>(out, 0, null, "expired")).get();
        TopicPartition tp = new TopicPartition(out, 0);
        try (KafkaConsumer<String, String> committed = consumer("lso", "read_committed");
             KafkaConsumer<String, String> uncommitted = consumer("hw", "read_uncommitted")) {
            long deadline = System.currentTimeMillis() + DEADLINE.toMillis();
            while (committed.endOffsets(List.of(tp), DEADLINE).get(tp)
                   < uncommitted.endOffsets(List.of(tp), DEADLINE).get(tp)) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("the transaction was not aborted");
                }
                Thread.sleep(100);
            }
        }
        say("timeout_commit " + thrown(p::commitTransaction));
        say("timeout_abort " + thrown(p::abortTransaction));
        say("timeout_next " + thrown(() -> {
            p.beginTransaction();
            p.send(new ProducerRecord<>(out, 1, null, "next")).get();
            p.commitTransaction();
        }));
        p.close(Duration.ZERO);
        say("timeout_values " + String.join(" ", readAll(out, "read_committed")));
    }

    static void commits(String in, String out, String group, String txnId, int records,
                        List<String> tags) throws Exception {
        BufferedReader stdin =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (KafkaProducer<String, String> p = producer(txnId)) {
            for (int t = 0; t < tags.size(); t++) {
                String tag = tags.get(t);
                if (!"send".equals(stdin.readLine())) {
                    throw new IllegalStateException("no send for " + tag);
                }
                p.beginTransaction();
                for (int i = 0; i < records; i++) {
                    p.send(new ProducerRecord<>(out, i % 2, null, tag + "-" + i));
                }
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (TopicPartition tp : partitions(in)) {
                    offsets.put(tp, new OffsetAndMetadata(5L * (t + 1)));
                }
                p.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(group));
                p.flush();
                say("ready " + tag);
                if (!"commit".equals(stdin.readLine())) {
                    throw new IllegalStateException("no commit for " + tag);
                }
                try {
                    p.commitTransaction();
                    say("committed " + tag);
                } catch (Exception e) {
                    say("error " + tag + " " + e.getClass().getName());
                    return;
                }
            }
        }
        try (Admin admin = Admin.create(base())) {
            Map<TopicPartition, OffsetAndMetadata> got =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            say("offsets " + got.get(new TopicPartition(in, 0)).offset() + " "
                + got.get(new TopicPartition(in, 1)).offset());
        }
        say("values " + String.join(" ", readAll(out, "read_committed")));
    }

    static void run(String in, String out, String group, String txnId, int records)
            throws Exception {
        try (KafkaProducer<String, String> plain = producer(null)) {
            for (int i = 0; i < records; i++) {
                plain.send(new ProducerRecord<>(in, i % 2, null, "v" + i)).get();
            }
        }

        KafkaProducer<String, String> p = producer(txnId);
        try (KafkaConsumer<String, String> c = consumer(group, "read_committed")) {
            c.subscribe(List.of(in));
            int done = 0;
            int pending = 0;
            int commits = 0;
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            long deadline = System.currentTimeMillis() + DEADLINE.toMillis();
            p.beginTransaction();
            while (done < records) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("consumed " + done + " of " + records);
                }
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    p.send(new ProducerRecord<>(out, r.partition(), null, "t-" + r.value()));
                    offsets.put(new TopicPartition(r.topic(), r.partition()),
                                new OffsetAndMetadata(r.offset() + 1));
                    done++;
                    pending++;
                    if (pending == 5) {
                        p.sendOffsetsToTransaction(offsets, c.groupMetadata());
                        offsets.clear();
                        p.commitTransaction();
                        commits++;
                        pending = 0;
                        p.beginTransaction();
                    }
                }
            }
            if (pending != 0) {
                throw new IllegalStateException(pending + " records not committed");
            }
            say("ctp_commits " + commits);
            Map<TopicPartition, OffsetAndMetadata> committed =
                c.committed(Collections.unmodifiableSet(new java.util.HashSet<>(partitions(in))),
                            DEADLINE);
            say("ctp_committed " + committed.get(new TopicPartition(in, 0)).offset() + " "
                + committed.get(new TopicPartition(in, 1)).offset());
        }

        // The transaction begun last: 5 records, aborted.
        for (int i = 0; i < 5; i++) {
            p.send(new ProducerRecord<>(out, i % 2, null, "aborted-" + i));
        }
        p.flush();
        p.abortTransaction();
        say("committed_values " + String.join(" ", readAll(out, "read_committed")));
        say("uncommitted_aborted "
            + readAll(out, "read_uncommitted").stream().filter(v -> v.startsWith("aborted-")).count());

        p.beginTransaction();
        p.send(new ProducerRecord<>(out, 0, null, "zombie")).get();
        KafkaProducer<String, String> p2 = producer(txnId);
        try {
            p.commitTransaction();
            say("zombie_commit none");
        } catch (Exception e) {
            say("zombie_commit " + e.getClass().getName());
        }
        try {
            p.send(new ProducerRecord<>(out, 0, null, "zombie-2")).get();
            say("zombie_send none");
        } catch (ExecutionException e) {
            say("zombie_send " + e.getCause().getClass().getName());
        } catch (Exception e) {
            say("zombie_send " + e.getClass().getName());
        }
        p.close(Duration.ZERO);
        p2.beginTransaction();
        p2.send(new ProducerRecord<>(out, 1, null, "after-zombie"));
        p2.commitTransaction();
        p2.close();
        say("final_values " + String.join(" ", readAll(out, "read_committed")));
        timeout(out + "-timeout", txnId + "-timeout");
    }
}
