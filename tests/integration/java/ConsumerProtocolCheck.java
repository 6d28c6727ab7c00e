// SPDX-License-Identifier: Apache-2.0
// Kafka's Java KafkaConsumer with group.protocol=consumer (KIP-848) for
// test_java_consumer_protocol.py: one scenario per run, every consumer of
// it a thread of this JVM, compiled once against the reference classpath:
//
//   java ConsumerProtocolCheck SCENARIO BOOTSTRAP PREFIX
//
// SCENARIO is assignors, scale, regex, static, commit or mixed (each one
// described at its method below); PREFIX names the scenario's topics and
// groups. Each consumer records what its
// ConsumerRebalanceListener is told in one ordered ownership ledger shared
// by all consumers; a partition handed to a consumer while another one
// still holds it prints "VIOLATION ...". What the scenario observed prints
// as "RESULT KEY VALUE" lines with no ids, hosts or ports in them, so that
// the runs against two brokers can be compared line by line. A condition
// not reached within the deadline, or any other error, prints "error
// CLASS: MESSAGE" and exits 1.
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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ConsumerProtocolCheck {
    static final long DEADLINE_MS = 120_000;

    static String bootstrap;
    static Admin admin;
    static final Ledger ledger = new Ledger();

    public static void main(String[] a) throws Exception {
        int rc = 0;
        bootstrap = a[1];
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        admin = Admin.create(p);
        try {
            String prefix = a[2];
            switch (a[0]) {
            case "assignors": assignors(prefix); break;
            case "scale": scale(prefix); break;
            case "regex": regex(prefix); break;
            case "static": staticMembers(prefix); break;
            case "commit": commitDuringRebalance(prefix); break;
            case "mixed": mixed(prefix); break;
            default: throw new IllegalArgumentException("unknown scenario " + a[0]);
            }
        } catch (Throwable e) {
            System.out.println("error " + e.getClass().getName() + ": " + e.getMessage());
            e.printStackTrace();
            rc = 1;
        }
        for (String v : ledger.violations())
            System.out.println("VIOLATION " + v);
        System.out.flush();
        Runtime.getRuntime().halt(rc);
    }

    static void result(String key, Object value) {
        System.out.println("RESULT " + key + " " + value);
        System.out.flush();
    }

    static void log(String what) {
        System.err.println("[" + System.currentTimeMillis() + "] " + what);
    }

    static void waitFor(BooleanSupplier cond, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (!cond.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline)
                throw new IllegalStateException("timed out waiting for " + what);
            Thread.sleep(50);
        }
        log("reached: " + what);
    }

    // -- topics, records, the group as Admin describes it --------------------

    static void createTopic(String name, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }

    static List<TopicPartition> partitions(String topic, int n) {
        List<TopicPartition> out = new ArrayList<>();
        for (int i = 0; i < n; i++)
            out.add(new TopicPartition(topic, i));
        return out;
    }

    /** Produces `perPartition` records to each partition, acknowledged. */
    static void produce(Collection<TopicPartition> tps, int perPartition) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
            for (TopicPartition tp : tps)
                for (int i = 0; i < perPartition; i++)
                    pr.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, "v" + i)).get();
        }
    }

    /** The group as Admin.describeConsumerGroups gives it; null while
     *  the coordinator does not know it. */
    static ConsumerGroupDescription describeOrNull(String group) {
        try {
            return admin.describeConsumerGroups(List.of(group)).all().get().get(group);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException)
                return null;
            throw new IllegalStateException("describe " + group, e);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static ConsumerGroupDescription describe(String group) {
        ConsumerGroupDescription g = describeOrNull(group);
        if (g == null)
            throw new IllegalStateException("no group " + group);
        return g;
    }

    static MemberDescription memberOf(ConsumerGroupDescription g, Member m) {
        for (MemberDescription d : g.members())
            if (d.clientId().equals(m.name))
                return d;
        return null;
    }

    /** The group is Stable with exactly `members`, each one owning (by its
     *  listener) what the coordinator assigned it and nothing is still to
     *  move (assignment = target assignment), and all of `tps` is owned. */
    static boolean settled(String group, Collection<TopicPartition> tps, Member... members) {
        ConsumerGroupDescription g = describeOrNull(group);
        if (g == null || g.groupState() != GroupState.STABLE || g.members().size() != members.length)
            return false;
        Set<TopicPartition> all = new HashSet<>();
        for (Member m : members) {
            MemberDescription d = memberOf(g, m);
            if (d == null)
                return false;
            Set<TopicPartition> assigned = d.assignment().topicPartitions();
            if (d.targetAssignment().isPresent()
                && !d.targetAssignment().get().topicPartitions().equals(assigned))
                return false;
            if (!m.owned().equals(assigned))
                return false;
            all.addAll(assigned);
        }
        return all.equals(new HashSet<>(tps));
    }

    static void waitSettled(String what, String group, Collection<TopicPartition> tps,
                            Member... members) throws InterruptedException {
        waitFor(() -> settled(group, tps, members), what);
    }

    /** The group's epoch, target assignment epoch and the members' epochs,
     *  in the order of `members`. */
    static String epochs(String group, Member... members) {
        ConsumerGroupDescription g = describe(group);
        List<Object> es = new ArrayList<>();
        for (Member m : members)
            es.add(memberOf(g, m).memberEpoch().orElse(null));
        return "group=" + g.groupEpoch().orElse(null) + " assignment="
            + g.targetAssignmentEpoch().orElse(null) + " members=" + es;
    }

    /** Whether the members' epochs (Admin's and their own generations) are
     *  all the group's epoch and its target assignment's: the group
     *  settled. The value of that epoch counts the coordinator's bumps,
     *  which with a classic member can depend on how its JoinGroup and
     *  the other member's heartbeats interleave, so it is not compared. */
    static boolean aligned(String group, Member... members) throws InterruptedException {
        ConsumerGroupDescription g = describe(group);
        int epoch = g.groupEpoch().orElse(-100);
        if (g.targetAssignmentEpoch().orElse(-200) != epoch)
            return false;
        for (Member m : members)
            if (memberOf(g, m).memberEpoch().orElse(-300) != epoch || m.generation() != epoch)
                return false;
        return true;
    }

    static String tpList(Collection<TopicPartition> tps) {
        return tps.stream().map(tp -> tp.topic() + "-" + tp.partition()).sorted()
            .collect(Collectors.joining(",", "[", "]"));
    }

    static String sortedCounts(Member... members) {
        List<Integer> counts = new ArrayList<>();
        for (Member m : members)
            counts.add(m.owned().size());
        counts.sort(null);
        return counts.toString();
    }

    // -- ownership ledger ------------------------------------------------------

    /** Who holds which partition in which group, as the consumers'
     *  listeners are told, in one order for all consumers of the JVM. */
    static final class Ledger {
        private final Map<String, Map<TopicPartition, String>> owners = new HashMap<>();
        private final List<String> violations = new ArrayList<>();
        private final List<String> events = new ArrayList<>();

        synchronized void assigned(String group, String who, Collection<TopicPartition> tps) {
            Map<TopicPartition, String> owner = owners.computeIfAbsent(group, g -> new HashMap<>());
            if (!tps.isEmpty())
                events.add(who + " assigned " + tpList(tps));
            for (TopicPartition tp : tps) {
                String was = owner.get(tp);
                if (was != null && !was.equals(who))
                    violations.add(group + ": " + tp + " assigned to " + who + " while " + was + " holds it");
                owner.put(tp, who);
            }
        }

        synchronized void released(String group, String who, String how,
                                   Collection<TopicPartition> tps) {
            Map<TopicPartition, String> owner = owners.computeIfAbsent(group, g -> new HashMap<>());
            if (!tps.isEmpty())
                events.add(who + " " + how + " " + tpList(tps));
            for (TopicPartition tp : tps)
                if (who.equals(owner.get(tp)))
                    owner.remove(tp);
        }

        synchronized Set<TopicPartition> ownedBy(String group, String who) {
            Set<TopicPartition> out = new HashSet<>();
            for (Map.Entry<TopicPartition, String> e
                     : owners.getOrDefault(group, Map.of()).entrySet())
                if (e.getValue().equals(who))
                    out.add(e.getKey());
            return out;
        }

        synchronized int eventCount() {
            return events.size();
        }

        synchronized List<String> eventsSince(int from, String who) {
            List<String> out = new ArrayList<>();
            for (String e : events.subList(from, events.size()))
                if (e.startsWith(who + " "))
                    out.add(e.substring(who.length() + 1));
            return out;
        }

        synchronized List<String> violations() {
            return new ArrayList<>(violations);
        }
    }

    // -- one consumer, polled by a thread of its own -----------------------------

    static final class Member implements ConsumerRebalanceListener, Runnable {
        final String name, group;
        final Properties props = new Properties();
        Object subscription;
        KafkaConsumer<String, String> consumer;
        Thread thread;
        volatile boolean stop;
        volatile Throwable failure;
        /** Run in the poll thread at each onPartitionsRevoked. */
        volatile Consumer<Collection<TopicPartition>> onRevoked;
        final ConcurrentLinkedQueue<ConsumerRecord<String, String>> records =
            new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        /** Run in the poll thread before each poll. */
        volatile Runnable everyPoll;

        Member(String name, String group, String protocol) {
            this.name = name;
            this.group = group;
            props.put("bootstrap.servers", bootstrap);
            props.put("group.id", group);
            props.put("group.protocol", protocol);
            props.put("client.id", name);
            props.put("auto.offset.reset", "earliest");
            props.put("enable.auto.commit", "false");
            props.put("metadata.max.age.ms", "1000");
            props.put("key.deserializer", StringDeserializer.class.getName());
            props.put("value.deserializer", StringDeserializer.class.getName());
            if (protocol.equals("classic")) {
                props.put("heartbeat.interval.ms", "500");
                props.put("session.timeout.ms", "45000");
            }
        }

        Member set(String key, String value) {
            props.put(key, value);
            return this;
        }

        Member start(Object subscription) {
            this.subscription = subscription;
            consumer = new KafkaConsumer<>(props);
            thread = new Thread(this, name);
            thread.start();
            return this;
        }

        @SuppressWarnings("unchecked")
        public void run() {
            try {
                if (subscription instanceof SubscriptionPattern)
                    consumer.subscribe((SubscriptionPattern) subscription, this);
                else if (subscription instanceof Pattern)
                    consumer.subscribe((Pattern) subscription, this);
                else
                    consumer.subscribe((Collection<String>) subscription, this);
                while (!stop) {
                    Runnable t;
                    while ((t = tasks.poll()) != null)
                        t.run();
                    Runnable each = everyPoll;
                    if (each != null)
                        each.run();
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100)))
                        records.add(r);
                }
            } catch (Throwable e) {
                failure = e;
                log(name + " failed: " + e);
            }
            consumer.close();
        }

        /** KafkaConsumer.close() in the poll thread (a dynamic member leaves,
         *  a static one keeps its place until its session ends). */
        void close() throws InterruptedException {
            stop = true;
            thread.join(DEADLINE_MS);
            if (thread.isAlive())
                throw new IllegalStateException(name + " did not close");
            check();
        }

        /** Waits until poll (or subscribe) throws, and closes; returns what
         *  was thrown, "CLASS: MESSAGE", with member ids normalised. */
        String waitFailure() throws InterruptedException {
            waitFor(() -> failure != null, name + " failing");
            thread.join(DEADLINE_MS);
            return failure.getClass().getSimpleName() + ": "
                + String.valueOf(failure.getMessage()).replaceAll("[A-Za-z0-9_-]{22}", "<id>");
        }

        void check() {
            if (failure != null)
                throw new IllegalStateException(name + " failed: " + failure, failure);
        }

        Set<TopicPartition> owned() {
            check();
            return ledger.ownedBy(group, name);
        }

        /** The group's generation as this member last learned it (its
         *  member epoch with the consumer protocol), read in its thread. */
        int generation() throws InterruptedException {
            AtomicInteger out = new AtomicInteger(Integer.MIN_VALUE);
            tasks.add(() -> out.set(consumer.groupMetadata().generationId()));
            waitFor(() -> out.get() != Integer.MIN_VALUE, name + " generation");
            return out.get();
        }

        Map<TopicPartition, Long> firstOffsets() {
            Map<TopicPartition, Long> out = new TreeMap<>(
                (x, y) -> (x.topic() + "-" + x.partition()).compareTo(y.topic() + "-" + y.partition()));
            for (ConsumerRecord<String, String> r : records)
                out.merge(new TopicPartition(r.topic(), r.partition()), r.offset(), Math::min);
            return out;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> tps) {
            ledger.assigned(group, name, tps);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> tps) {
            Consumer<Collection<TopicPartition>> hook = onRevoked;
            if (hook != null && !tps.isEmpty())
                hook.accept(tps);
            ledger.released(group, name, "revoked", tps);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> tps) {
            ledger.released(group, name, "lost", tps);
        }
    }

    // -- scenarios -----------------------------------------------------------------

    /** The uniform and the range assignor (group.remote.assignor) on two
     *  topics of 6 and 3 partitions, members joining one by one to three
     *  and one leaving. Range's assignment is a function of the member ids'
     *  order, printed in that order; uniform's depends on the coordinator's
     *  iteration order, so its partition counts print, and whether each
     *  member only lost partitions when another joined (stickiness). */
    static void assignors(String prefix) throws Exception {
        String x = prefix + "-x", y = prefix + "-y";
        createTopic(x, 6);
        createTopic(y, 3);
        List<TopicPartition> tps = new ArrayList<>(partitions(x, 6));
        tps.addAll(partitions(y, 3));
        for (String assignor : List.of("uniform", "range")) {
            String group = prefix + "-" + assignor;
            List<Member> ms = new ArrayList<>();
            Map<String, Set<TopicPartition>> before = new HashMap<>();
            for (int i = 0; i < 3; i++) {
                ms.add(new Member(assignor + i, group, "consumer")
                    .set("group.remote.assignor", assignor).start(List.of(x, y)));
                Member[] live = ms.toArray(new Member[0]);
                waitSettled(assignor + " with " + live.length, group, tps, live);
                report(assignor, group, live, before);
            }
            ms.get(1).close();
            ms.remove(1);
            Member[] live = ms.toArray(new Member[0]);
            waitSettled(assignor + " after a leave", group, tps, live);
            report(assignor, group, live, before);
            for (Member m : ms)
                m.close();
        }
        // heterogeneous subscriptions: h0 both topics, h1 only y, h2 only x
        List<List<String>> subs = List.of(List.of(x, y), List.of(y), List.of(x));
        for (String assignor : List.of("uniform", "range")) {
            String group = prefix + "-hetero-" + assignor;
            List<Member> ms = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ms.add(new Member("h" + i, group, "consumer")
                    .set("group.remote.assignor", assignor).start(subs.get(i)));
                Member[] live = ms.toArray(new Member[0]);
                waitSettled(assignor + " heterogeneous with " + live.length, group, tps, live);
                result("hetero." + assignor + "." + live.length, assignor.equals("range")
                       ? byTopicInMemberIdOrder(group, List.of(x, y), live)
                       : countsByTopic(x, live));
            }
            for (Member m : ms)
                m.close();
        }
        // members asking for different assignors: the group's follows them
        String group = prefix + "-votes";
        List<Member> voters = new ArrayList<>();
        for (String assignor : List.of("range", "uniform", "uniform")) {
            voters.add(new Member("v" + voters.size(), group, "consumer")
                .set("group.remote.assignor", assignor).start(List.of(x, y)));
            waitSettled(voters.size() + " voters", group, tps, voters.toArray(new Member[0]));
            result("votes." + voters.size(), describe(group).partitionAssignor());
        }
        voters.remove(1).close();
        waitSettled("a voter gone", group, tps, voters.toArray(new Member[0]));
        result("votes.tied", describe(group).partitionAssignor());
        for (Member m : voters)
            m.close();
        Member bad = new Member("bad", prefix + "-bad", "consumer")
            .set("group.remote.assignor", "nope").start(List.of(x));
        result("unknown_assignor", bad.waitFailure());
    }

    /** Per topic, the partitions of each member holding some, members in
     *  the order of their ids (the order range hands out its ranges in). */
    static String byTopicInMemberIdOrder(String group, List<String> topics, Member[] live) {
        List<String> out = new ArrayList<>();
        for (String topic : topics) {
            List<String> ranges = new ArrayList<>();
            for (Member m : inMemberIdOrder(group, live)) {
                Set<TopicPartition> own = new HashSet<>(m.owned());
                own.removeIf(tp -> !tp.topic().equals(topic));
                if (!own.isEmpty())
                    ranges.add(tpList(own));
            }
            out.add(String.join(" ", ranges));
        }
        return String.join(" | ", out);
    }

    static Collection<Member> inMemberIdOrder(String group, Member[] live) {
        ConsumerGroupDescription g = describe(group);
        TreeMap<String, Member> byId = new TreeMap<>();
        for (Member m : live)
            byId.put(memberOf(g, m).consumerId(), m);
        return byId.values();
    }

    /** "NAME:xNyM" for each member, N partitions of topic x, M of others. */
    static String countsByTopic(String x, Member[] live) {
        List<String> out = new ArrayList<>();
        for (Member m : live) {
            long nx = m.owned().stream().filter(tp -> tp.topic().equals(x)).count();
            out.add(m.name + ":x" + nx + "y" + (m.owned().size() - nx));
        }
        return String.join(" ", out);
    }

    static void report(String assignor, String group, Member[] live,
                       Map<String, Set<TopicPartition>> before) {
        ConsumerGroupDescription g = describe(group);
        String key = assignor + "." + live.length + (before.size() > live.length ? ".shrunk" : "");
        result(key + ".assignor", g.partitionAssignor());
        if (assignor.equals("range")) {
            List<String> order = new ArrayList<>();
            for (Member m : inMemberIdOrder(group, live))
                order.add(tpList(m.owned()));
            result(key + ".by_member_id", String.join(" ", order));
        } else {
            result(key + ".counts", sortedCounts(live));
            boolean sticky = true;
            for (Member m : live) {
                Set<TopicPartition> was = before.get(m.name);
                Set<TopicPartition> now = m.owned();
                if (was != null && !(was.containsAll(now) || now.containsAll(was)))
                    sticky = false;
            }
            result(key + ".sticky", sticky);
        }
        for (Member m : live)
            before.put(m.name, m.owned());
    }

    /** One consumer, three, one again on a topic of 8 partitions, with
     *  the default assignor (uniform) and with range (which is not sticky:
     *  partitions also move between the members that stay): no partition
     *  with two owners at any time, every partition owned at each step. */
    static void scale(String prefix) throws Exception {
        scaleWith(prefix, "uniform", "");
        scaleWith(prefix + "-range", "range", "range.");
    }

    static void scaleWith(String prefix, String assignor, String v) throws Exception {
        String topic = prefix + "-t", group = prefix + "-g";
        createTopic(topic, 8);
        List<TopicPartition> tps = partitions(topic, 8);
        produce(tps, 2);
        Member c0 = new Member("c0", group, "consumer").set("group.remote.assignor", assignor)
            .start(List.of(topic));
        waitSettled("one consumer", group, tps, c0);
        result(v + "one.counts", sortedCounts(c0));
        result(v + "one.epochs", epochs(group, c0) + " generation=" + c0.generation());
        Member c1 = new Member("c1", group, "consumer").set("group.remote.assignor", assignor)
            .start(List.of(topic));
        Member c2 = new Member("c2", group, "consumer").set("group.remote.assignor", assignor)
            .start(List.of(topic));
        waitSettled("three consumers", group, tps, c0, c1, c2);
        result(v + "three.counts", sortedCounts(c0, c1, c2));
        result(v + "three.epochs", epochs(group, c0, c1, c2));
        c1.close();
        c2.close();
        waitSettled("one consumer again", group, tps, c0);
        result(v + "one_again.owned", tpList(c0.owned()).replace(prefix, "T"));
        result(v + "one_again.epochs", epochs(group, c0) + " generation=" + c0.generation());
        // every record was read at least once, by whoever held its partition
        Set<String> seen = new HashSet<>();
        for (Member m : List.of(c0, c1, c2))
            for (ConsumerRecord<String, String> r : m.records)
                seen.add(r.partition() + "/" + r.offset());
        result(v + "records_seen", seen.size());
        c0.close();
    }

    /** A broker-side regex (SubscriptionPattern) and a client-side one
     *  (Pattern) each pick up a topic Admin creates while they run, and
     *  read its records; a topic the regex does not match stays out. A
     *  member subscribed by name joins the regex member's group for a
     *  while; the new topic is deleted and both regexes let it go. */
    static void regex(String prefix) throws Exception {
        String a = prefix + "-rx-a", b = prefix + "-rx-b", other = prefix + "-other";
        createTopic(a, 2);
        Member broker = new Member("broker", prefix + "-broker", "consumer")
            .start(new SubscriptionPattern(prefix + "-rx-.*"));
        Member client = new Member("client", prefix + "-client", "consumer")
            .start(Pattern.compile(Pattern.quote(prefix + "-rx-") + ".*"));
        List<TopicPartition> first = partitions(a, 2);
        waitSettled("broker regex on one topic", prefix + "-broker", first, broker);
        waitSettled("client regex on one topic", prefix + "-client", first, client);
        result("before", tpList(broker.owned()) + " " + tpList(client.owned()));
        result("before.epochs", epochs(prefix + "-broker", broker) + " "
               + epochs(prefix + "-client", client));
        createTopic(b, 3);
        createTopic(other, 1);
        List<TopicPartition> both = new ArrayList<>(first);
        both.addAll(partitions(b, 3));
        produce(partitions(b, 3), 1);
        produce(partitions(other, 1), 1);
        waitSettled("broker regex on the new topic", prefix + "-broker", both, broker);
        waitSettled("client regex on the new topic", prefix + "-client", both, client);
        result("after", tpList(broker.owned()) + " " + tpList(client.owned()));
        result("after.epochs", epochs(prefix + "-broker", broker) + " "
               + epochs(prefix + "-client", client));
        waitFor(() -> broker.records.size() == 3 && client.records.size() == 3,
                "the new topic's records read");
        result("read", tpList(broker.firstOffsets().keySet()) + " "
               + tpList(client.firstOffsets().keySet()));

        // a member subscribed by name next to the broker-side regex one
        Member named = new Member("named", prefix + "-broker", "consumer").start(List.of(a));
        waitSettled("a named member next to the regex one", prefix + "-broker", both,
                    broker, named);
        result("with_named", "regex:" + tpList(broker.owned()) + " named:" + tpList(named.owned()));
        named.close();
        waitSettled("the regex member alone again", prefix + "-broker", both, broker);

        // the new topic deleted: both regexes let it go
        admin.deleteTopics(List.of(b)).all().get();
        waitSettled("broker regex after the deletion", prefix + "-broker", first, broker);
        waitSettled("client regex after the deletion", prefix + "-client", first, client);
        result("deleted", tpList(broker.owned()) + " " + tpList(client.owned()));
        broker.close();
        client.close();
        Member bad = new Member("bad", prefix + "-bad", "consumer")
            .start(new SubscriptionPattern("(unclosed"));
        result("invalid_regex", bad.waitFailure());
    }

    /** Two static members (group.instance.id) of the range assignor (which
     *  orders static members by instance id); a third consumer with the
     *  first one's instance id is refused; the second is closed and a new
     *  consumer with its instance id starts within the session: it gets
     *  the same partitions back, and the other member's epoch, assignment
     *  and listener are left alone. */
    static void staticMembers(String prefix) throws Exception {
        String topic = prefix + "-t", group = prefix + "-g";
        createTopic(topic, 6);
        List<TopicPartition> tps = partitions(topic, 6);
        Member s0 = new Member("s0", group, "consumer").set("group.instance.id", "i0")
            .set("group.remote.assignor", "range").start(List.of(topic));
        waitSettled("s0 alone", group, tps, s0);
        Member s1 = new Member("s1", group, "consumer").set("group.instance.id", "i1")
            .set("group.remote.assignor", "range").start(List.of(topic));
        waitSettled("s0 and s1", group, tps, s0, s1);
        ConsumerGroupDescription g = describe(group);
        int s0Epoch = memberOf(g, s0).memberEpoch().orElse(-100);
        int s1Epoch = memberOf(g, s1).memberEpoch().orElse(-100);
        int s0Generation = s0.generation();
        int groupEpoch = g.groupEpoch().orElse(-100);
        Set<TopicPartition> s0Owned = s0.owned(), s1Owned = s1.owned();
        result("split", tpList(s0Owned) + " " + tpList(s1Owned));
        int mark = ledger.eventCount();

        Member twin = new Member("twin", group, "consumer").set("group.instance.id", "i0")
            .start(List.of(topic));
        result("same_instance_id", twin.waitFailure());
        result("after_twin.epochs", epochs(group, s0, s1));

        s1.close();
        ConsumerGroupDescription closed = describe(group);
        MemberDescription gone = memberOf(closed, s1);
        result("closed.members", closed.members().size());
        result("closed.state", closed.groupState());
        result("closed.s1_assignment_kept", gone != null
               && gone.assignment().topicPartitions().equals(s1Owned));
        result("closed.group_epoch_delta", closed.groupEpoch().orElse(-100) - groupEpoch);

        Member back = new Member("s1", group, "consumer").set("group.instance.id", "i1")
            .set("group.remote.assignor", "range").start(List.of(topic));
        waitSettled("s1 back", group, tps, s0, back);
        ConsumerGroupDescription after = describe(group);
        result("back.same_partitions", back.owned().equals(s1Owned));
        result("back.epoch_vs_before", Integer.compare(memberOf(after, back).memberEpoch()
                                                       .orElse(-100), s1Epoch));
        result("back.generation_vs_before", Integer.compare(back.generation(), s1Epoch));
        result("other.epoch_unchanged", memberOf(after, s0).memberEpoch().orElse(-100) == s0Epoch);
        result("other.generation_unchanged", s0.generation() == s0Generation);
        result("other.assignment_unchanged", s0.owned().equals(s0Owned));
        result("other.callbacks", ledger.eventsSince(mark, "s0"));
        result("group_epoch_delta", after.groupEpoch().orElse(-100) - groupEpoch);
        s0.close();
        back.close();
        awayStatic(prefix);
    }

    /** A static member away (closed, within its session) while the group
     *  changes around it: its dynamic partner leaves and a new dynamic
     *  member joins; what the newcomer is given while the static member's
     *  place is kept, and what the static member finds when it is back. */
    static void awayStatic(String prefix) throws Exception {
        String topic = prefix + "-away-t", group = prefix + "-away-g";
        createTopic(topic, 6);
        List<TopicPartition> tps = partitions(topic, 6);
        Member s = new Member("s", group, "consumer").set("group.instance.id", "i")
            .start(List.of(topic));
        // s takes its partitions before d0 comes: a member that reports none
        // owned yet gives them up at once (on Kafka too), and the listener it
        // runs later would hand them to s after d0.
        waitFor(() -> s.owned().size() == tps.size(), "s owns every partition");
        Member d0 = new Member("d0", group, "consumer").start(List.of(topic));
        waitSettled("s and d0", group, tps, s, d0);
        Set<TopicPartition> sOwned = s.owned();
        s.close();
        d0.close();
        ConsumerGroupDescription g = describe(group);
        result("away.alone.members", g.members().size() + " " + g.groupState());
        Member d1 = new Member("d1", group, "consumer").start(List.of(topic));
        waitFor(() -> {
            ConsumerGroupDescription x = describe(group);
            MemberDescription d = memberOf(x, d1);
            return d != null && !d1.owned().isEmpty()
                && d.assignment().topicPartitions().equals(d1.owned());
        }, "d1 given partitions");
        g = describe(group);
        MemberDescription d = memberOf(g, d1);
        result("away.newcomer", d1.owned().size() + " of " + tps.size() + " (target "
               + d.targetAssignment().get().topicPartitions().size() + "), "
               + g.members().size() + " members, " + g.groupState()
               + ", kept for s: " + tpList(memberOf(g, s).targetAssignment().get().topicPartitions())
                   .equals(tpList(sOwned)));
        Member back = new Member("s", group, "consumer").set("group.instance.id", "i")
            .start(List.of(topic));
        waitSettled("s back next to d1", group, tps, back, d1);
        result("away.back", back.owned().equals(sOwned) + " " + sortedCounts(back, d1));
        back.close();
        d1.close();
    }

    /** commitSync in onPartitionsRevoked: when a second member joins (the
     *  first gives partitions up) and when that member closes. What each
     *  commit gave, what is committed, and where the next owner of a
     *  partition starts reading. */
    static void commitDuringRebalance(String prefix) throws Exception {
        String topic = prefix + "-t", group = prefix + "-g";
        createTopic(topic, 4);
        List<TopicPartition> tps = partitions(topic, 4);
        produce(tps, 5);
        List<String> outcomes = new ArrayList<>();
        Member c0 = new Member("c0", group, "consumer").start(List.of(topic));
        c0.onRevoked = revoked -> commitPositions(c0, revoked, outcomes);
        waitSettled("c0 alone", group, tps, c0);
        waitFor(() -> c0.records.size() == 20, "c0 read everything");

        // c0 also commits what it holds before each poll while c1 joins
        Set<String> polled = new ConcurrentSkipListSet<>();
        c0.everyPoll = () -> {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition tp : c0.consumer.assignment())
                offsets.put(tp, new OffsetAndMetadata(c0.consumer.position(tp)));
            try {
                c0.consumer.commitSync(offsets);
                polled.add("ok");
            } catch (Exception e) {
                polled.add(e.getClass().getSimpleName());
            }
        };
        waitFor(() -> !polled.isEmpty(), "c0 committing before its polls");
        Member c1 = new Member("c1", group, "consumer").start(List.of(topic));
        c1.onRevoked = revoked -> commitPositions(c1, revoked, outcomes);
        waitSettled("c0 and c1", group, tps, c0, c1);
        c0.everyPoll = null;
        c0.generation(); // a turn of c0's loop: no commit of it still running
        result("join.commits", outcomes);
        result("join.commits_before_polls", polled);
        result("committed_after_join", committed(group, tps));

        produce(tps, 1);
        waitFor(() -> c0.records.size() + c1.records.size() == 24, "the new records read");
        Map<TopicPartition, Long> firstOfC1 = c1.firstOffsets();
        result("c1.first_offsets", firstOfC1.values());
        // c0 commits for a partition c1 holds (with c0's current epoch)
        TopicPartition foreign = firstOfC1.keySet().iterator().next();
        AtomicReference<String> foreignOutcome = new AtomicReference<>();
        c0.tasks.add(() -> {
            try {
                c0.consumer.commitSync(Map.of(foreign, new OffsetAndMetadata(1)));
                foreignOutcome.set("ok");
            } catch (Exception e) {
                foreignOutcome.set(e.getClass().getSimpleName());
            }
        });
        waitFor(() -> foreignOutcome.get() != null, "c0's commit for a partition of c1");
        result("foreign_commit", foreignOutcome.get() + " " + committed(group, tps));
        outcomes.clear();
        c1.close();
        result("close.commits", outcomes);
        waitSettled("c0 alone again", group, tps, c0);
        result("committed_after_close", committed(group, tps));
        c0.onRevoked = null; // what it just got has no position yet
        c0.close();
    }

    /** The partitions of which m read the record at `offset`. */
    static Set<TopicPartition> readBy(Member m, long offset) {
        Set<TopicPartition> out = new HashSet<>();
        for (ConsumerRecord<String, String> r : m.records)
            if (r.offset() == offset)
                out.add(new TopicPartition(r.topic(), r.partition()));
        return out;
    }

    static void commitPositions(Member m, Collection<TopicPartition> revoked, List<String> out) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : revoked)
            offsets.put(tp, new OffsetAndMetadata(m.consumer.position(tp)));
        String outcome;
        try {
            m.consumer.commitSync(offsets);
            outcome = "ok";
        } catch (Exception e) {
            outcome = e.getClass().getSimpleName();
        }
        synchronized (out) {
            out.add(m.name + ":" + revoked.size() + ":" + outcome);
            out.sort(null); // members of one rebalance commit in no set order
        }
    }

    static String committed(String group, List<TopicPartition> tps) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> got =
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        List<String> out = new ArrayList<>();
        for (TopicPartition tp : tps) {
            OffsetAndMetadata o = got.get(tp);
            out.add(o == null ? "-" : Long.toString(o.offset()));
        }
        out.sort(null); // which partitions moved depends on the member ids
        return out.toString();
    }

    /** A classic consumer and a consumer-protocol one in one group, in
     *  three variants: the classic member (eager range, then cooperative
     *  sticky) forms the group and the other joins (the group becomes a
     *  consumer group), or the consumer-protocol member is there first.
     *  Both read their partitions; each member commits its positions in
     *  onPartitionsRevoked; the consumer-protocol member leaves (back to a
     *  classic group) and the classic one owns everything. Then a static
     *  classic member restarted in a consumer group (mixedStatic). */
    static void mixed(String prefix) throws Exception {
        mixedVariant(prefix + "-eager", RangeAssignor.class.getName(), false);
        mixedVariant(prefix + "-coop", CooperativeStickyAssignor.class.getName(), false);
        mixedVariant(prefix + "-late", RangeAssignor.class.getName(), true);
        mixedStatic(prefix + "-static");
    }

    /** A static classic member (group.instance.id) next to a
     *  consumer-protocol member in a consumer group: closed (a static
     *  classic member does not leave) and back within its session, it gets
     *  its partitions back and the other member is left alone. */
    static void mixedStatic(String prefix) throws Exception {
        String topic = prefix + "-t", group = prefix + "-g";
        createTopic(topic, 4);
        List<TopicPartition> tps = partitions(topic, 4);
        Member modern = new Member("modern", group, "consumer").start(List.of(topic));
        waitSettled("the consumer-protocol member alone", group, tps, modern);
        Member classic = new Member("classic", group, "classic")
            .set("group.instance.id", "ci").start(List.of(topic));
        waitSettled("both members", group, tps, classic, modern);
        Set<TopicPartition> classicOwned = classic.owned(), modernOwned = modern.owned();
        int modernEpoch = modern.generation();
        result("static.split", sortedCounts(classic, modern));
        String staticEpochs = epochs(group, classic, modern);
        result("static.epochs_aligned", aligned(group, classic, modern));
        int mark = ledger.eventCount();

        classic.close();
        ConsumerGroupDescription closed = describe(group);
        result("static.closed.members", closed.members().size());
        result("static.closed.state", closed.groupState());
        Member back = new Member("classic", group, "classic")
            .set("group.instance.id", "ci").start(List.of(topic));
        waitSettled("the static classic member back", group, tps, back, modern);
        result("static.back.same_partitions", back.owned().equals(classicOwned));
        result("static.back.epochs_unchanged", epochs(group, back, modern).equals(staticEpochs));
        result("static.other.unchanged", modern.owned().equals(modernOwned)
               && modern.generation() == modernEpoch);
        result("static.other.callbacks", ledger.eventsSince(mark, "modern"));
        back.close();
        modern.close();
    }

    static void mixedVariant(String prefix, String strategy, boolean modernFirst)
        throws Exception {
        String topic = prefix + "-t", group = prefix + "-g";
        String v = prefix.substring(prefix.lastIndexOf('-') + 1) + ".";
        createTopic(topic, 4);
        List<TopicPartition> tps = partitions(topic, 4);
        produce(tps, 2);
        List<String> outcomes = new ArrayList<>();
        Member classic = new Member("classic", group, "classic")
            .set("partition.assignment.strategy", strategy);
        classic.onRevoked = revoked -> commitPositions(classic, revoked, outcomes);
        Member modern = new Member("modern", group, "consumer");
        modern.onRevoked = revoked -> commitPositions(modern, revoked, outcomes);
        Member first = modernFirst ? modern : classic;
        first.start(List.of(topic));
        waitSettled("the first member alone", group, tps, first);
        waitFor(() -> first.records.size() == 8, "the first member read everything");
        result(v + "first.type", describe(group).type());
        result(v + "first.generation", first.generation());

        Member second = modernFirst ? classic : modern;
        second.start(List.of(topic));
        waitSettled("both members", group, tps, classic, modern);
        ConsumerGroupDescription g = describe(group);
        result(v + "mixed.type", g.type());
        result(v + "mixed.counts", sortedCounts(classic, modern));
        result(v + "mixed.upgraded", memberOf(g, classic).upgraded() + " "
               + memberOf(g, modern).upgraded());
        result(v + "mixed.epochs_aligned", aligned(group, classic, modern));
        int mixedEpoch = g.groupEpoch().orElse(-100);
        result(v + "mixed.assignor", g.partitionAssignor());
        result(v + "mixed.commits", outcomes);
        result(v + "mixed.committed", committed(group, tps));
        produce(tps, 1);
        waitFor(() -> readBy(classic, 2).equals(classic.owned())
                && readBy(modern, 2).equals(modern.owned()),
                "each member read the new record of each of its partitions");
        result(v + "mixed.second_first_offsets", second.firstOffsets().values());

        outcomes.clear();
        modern.close();
        waitSettled("the classic member alone", group, tps, classic);
        result(v + "after.type", describe(group).type());
        result(v + "after.owned", tpList(classic.owned()));
        result(v + "after.generation_vs_mixed_epoch", classic.generation() - mixedEpoch);
        result(v + "after.assignor", describe(group).partitionAssignor());
        result(v + "after.commits", outcomes);
        classic.onRevoked = null;
        classic.close();
    }
}
