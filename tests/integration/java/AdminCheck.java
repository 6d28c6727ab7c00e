// SPDX-License-Identifier: Apache-2.0
// Kafka 4.4's Java Admin client (the reference classpath) for
// test_java_admin.py and test_consumer_groups_tool.py, compiled with javac:
//
//   admin BOOTSTRAP PREFIX   every Admin call of test_java_admin.py on the
//                            groups and topics named PREFIX-* (the topics
//                            and the streams group made by the caller),
//                            each result printed as one or more
//                            normalised lines
//   hold BOOTSTRAP GROUP TOPIC PROTOCOL INSTANCE
//                            a consumer of GROUP (PROTOCOL: classic or
//                            consumer; INSTANCE: its group.instance.id or
//                            "-") subscribed to TOPIC, polled until it owns
//                            every partition; commits offset P+1 of each
//                            partition P, prints "assigned N", then
//                            polls until stdin closes and closes (a static
//                            member stays in its group)
//
// Normalised: member, process and topic ids, the broker's address and the
// client's host are replaced by names; sets of ACL operations, a group's
// members and a classic member's partitions are sorted. Errors print
// "error CLASS: MESSAGE" and exit 1.
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DescribeStreamsGroupsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupResult;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class AdminCheck {
    // Text to replace in every printed line: an id or address -> its name.
    static final Map<String, String> NAMES = new LinkedHashMap<>();

    public static void main(String[] a) throws Exception {
        try {
            switch (a[0]) {
            case "admin": admin(a[1], a[2]); break;
            case "hold": hold(a[1], a[2], a[3], a[4], a[5]); break;
            default: throw new IllegalArgumentException("unknown command " + a[0]);
            }
        } catch (Exception e) {
            System.out.println("error " + e.getClass().getName() + ": " + e.getMessage());
            System.out.flush();
            System.exit(1);
        }
        System.out.flush();
        System.exit(0);
    }

    static String normalised(String s) {
        for (Map.Entry<String, String> e : NAMES.entrySet())
            s = s.replace(e.getKey(), e.getValue());
        return s;
    }

    static void out(String what, Object result) {
        System.out.println(what + " " + normalised(String.valueOf(result)));
    }

    // The result of a future, or "error SIMPLENAME: MESSAGE" of its failure.
    static Object get(KafkaFuture<?> f) throws InterruptedException {
        try {
            Object v = f.get();
            return v == null ? "ok" : v;
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            return "error " + c.getClass().getSimpleName() + ": " + c.getMessage();
        }
    }

    static String ops(Set<AclOperation> ops) {
        if (ops == null)
            return "null";
        TreeSet<String> s = new TreeSet<>();
        for (AclOperation o : ops)
            s.add(o.toString());
        return s.toString();
    }

    static Properties consumerProps(String bootstrap, String group, String protocol, String instance,
                                    String clientId) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("group.protocol", protocol);
        p.put("client.id", clientId);
        if (!instance.equals("-"))
            p.put("group.instance.id", instance);
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        return p;
    }

    // A subscribed consumer polled until it owns n partitions.
    static KafkaConsumer<String, String> join(String bootstrap, String group, String topic,
                                              String protocol, String instance, int n) {
        KafkaConsumer<String, String> c =
            new KafkaConsumer<>(consumerProps(bootstrap, group, protocol, instance, group + "-client"));
        c.subscribe(List.of(topic));
        long deadline = System.currentTimeMillis() + 120000;
        while (c.assignment().size() < n) {
            if (System.currentTimeMillis() > deadline)
                throw new IllegalStateException(group + " owns " + c.assignment());
            c.poll(Duration.ofMillis(200));
        }
        return c;
    }

    /**
     * A consumer group with a consumer-protocol member owning the topic's
     * one partition and a classic-protocol member joined after it, polled
     * until describeConsumerGroups shows it Stable with both members at the
     * group's epoch: {consumer member, classic member}.
     */
    static List<KafkaConsumer<String, String>> mixedGroup(Admin admin, String bootstrap, String group,
                                                      String topic) throws Exception {
        KafkaConsumer<String, String> first = join(bootstrap, group, topic, "consumer", "-", 1);
        KafkaConsumer<String, String> second =
            new KafkaConsumer<>(consumerProps(bootstrap, group, "classic", "-", group + "-classic-client"));
        second.subscribe(List.of(topic));
        long deadline = System.currentTimeMillis() + 120000;
        while (true) {
            first.poll(Duration.ofMillis(100));
            second.poll(Duration.ofMillis(100));
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group))
                .describedGroups().get(group).get();
            boolean settled = d.groupState() == GroupState.STABLE && d.members().size() == 2;
            for (MemberDescription m : d.members())
                settled &= m.memberEpoch().equals(d.groupEpoch());
            if (settled)
                break;
            if (System.currentTimeMillis() > deadline)
                throw new IllegalStateException(group + " not settled: " + d);
        }
        return List.of(first, second);
    }

    static void hold(String bootstrap, String group, String topic, String protocol,
                     String instance) throws Exception {
        int n;
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(p)) {
            n = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic)
                .partitions().size();
        }
        KafkaConsumer<String, String> c = join(bootstrap, group, topic, protocol, instance, n);
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : c.assignment())
            offsets.put(tp, new OffsetAndMetadata(tp.partition() + 1));
        c.commitSync(offsets);
        System.out.println("assigned " + c.assignment().size());
        System.out.flush();
        Thread stdin = new Thread(() -> {
            try {
                while (System.in.read() >= 0) { }
            } catch (java.io.IOException e) {
                // closed
            }
        });
        stdin.start();
        while (stdin.isAlive())
            c.poll(Duration.ofMillis(200));
        c.close();
        System.out.println("closed");
    }

    static void produce(String bootstrap, String topic, int partitions, int n) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
            for (int i = 0; i < n; i++)
                pr.send(new ProducerRecord<>(topic, i % partitions, null, "v" + i)).get();
        }
    }

    static void listGroups(Admin admin, String prefix, String what, ListGroupsOptions o)
        throws Exception {
        TreeMap<String, String> seen = new TreeMap<>();
        for (GroupListing g : admin.listGroups(o).all().get())
            if (g.groupId().startsWith(prefix))
                seen.put(g.groupId(), g.toString());
        out("listGroups " + what, seen.values());
    }

    static void describeConsumerGroups(Admin admin, String what, List<String> groups)
        throws Exception {
        Map<String, KafkaFuture<ConsumerGroupDescription>> r = admin.describeConsumerGroups(groups,
            new DescribeConsumerGroupsOptions().includeAuthorizedOperations(true)).describedGroups();
        for (String g : groups) {
            Object d = get(r.get(g));
            if (d instanceof ConsumerGroupDescription) {
                ConsumerGroupDescription cd = (ConsumerGroupDescription) d;
                String s = cd.toString().replace(String.valueOf(cd.authorizedOperations()),
                                                 ops(cd.authorizedOperations()));
                // Members in the order of their descriptions, which follows
                // a hash map's of their ids, and a classic member's
                // assignment in the order its leader wrote it, which
                // follows a hash map's too.
                List<String> members = new ArrayList<>();
                TreeSet<String> sorted = new TreeSet<>();
                for (MemberDescription m : cd.members()) {
                    NAMES.putIfAbsent(m.consumerId(), "MEMBER-" + m.clientId());
                    members.add(m.toString());
                    sorted.add(normalised(m.toString().replace(m.assignment().toString(),
                        assignment(m.assignment().topicPartitions()))));
                }
                d = s.replace("members=" + String.join(",", members),
                              "members=" + String.join(",", sorted));
            }
            out("describeConsumerGroups " + what + " " + g, d);
        }
    }

    static String assignment(Set<TopicPartition> tps) {
        TreeSet<String> s = new TreeSet<>();
        for (TopicPartition tp : tps)
            s.add(tp.toString());
        return "(topicPartitions=" + String.join(",", s) + ")";
    }

    static void describeStreamsGroups(Admin admin, List<String> groups) throws Exception {
        Map<String, KafkaFuture<StreamsGroupDescription>> r = admin.describeStreamsGroups(groups,
            new DescribeStreamsGroupsOptions().includeAuthorizedOperations(true)).describedGroups();
        for (String g : groups) {
            Object d = get(r.get(g));
            if (d instanceof StreamsGroupDescription) {
                StreamsGroupDescription sd = (StreamsGroupDescription) d;
                for (StreamsGroupMemberDescription m : sd.members()) {
                    NAMES.putIfAbsent(m.memberId(), "MEMBER-" + g);
                    NAMES.putIfAbsent(m.processId(), "PROCESS-" + g);
                }
                // This one joins its operations with commas, unbracketed.
                String joined = String.join(",", sd.authorizedOperations().stream()
                    .map(Object::toString).toList());
                d = sd.toString().replace("authorizedOperations=" + joined,
                                          "authorizedOperations=" + ops(sd.authorizedOperations()));
            }
            out("describeStreamsGroups " + g, d);
        }
    }

    static void listOffsets(Admin admin, String what, List<String> groups) throws Exception {
        Map<String, ListConsumerGroupOffsetsSpec> specs = new LinkedHashMap<>();
        for (String g : groups)
            specs.put(g, new ListConsumerGroupOffsetsSpec());
        var r = admin.listConsumerGroupOffsets(specs);
        for (String g : groups) {
            Object o = get(r.partitionsToOffsetAndMetadata(g));
            if (o instanceof Map)
                o = new TreeMap<String, Object>(sortedOffsets((Map<?, ?>) o));
            out("listConsumerGroupOffsets " + what + " " + g, o);
        }
    }

    static Map<String, Object> sortedOffsets(Map<?, ?> m) {
        Map<String, Object> s = new TreeMap<>();
        for (Map.Entry<?, ?> e : m.entrySet())
            s.put(e.getKey().toString(), e.getValue());
        return s;
    }

    static void removeMembers(Admin admin, String group, String instance) throws Exception {
        MemberToRemove m = new MemberToRemove(instance);
        RemoveMembersFromConsumerGroupResult r = admin.removeMembersFromConsumerGroup(group,
            new RemoveMembersFromConsumerGroupOptions(List.of(m)));
        out("removeMembersFromConsumerGroup " + group + " " + instance,
            get(r.all()) + " member " + get(r.memberResult(m)));
    }

    static void alterConfigs(Admin admin, String what, ConfigResource res,
                             List<AlterConfigOp> ops) throws Exception {
        out("incrementalAlterConfigs " + what,
            get(admin.incrementalAlterConfigs(Map.of(res, ops)).values().get(res)));
    }

    static void describeConfigs(Admin admin, ConfigResource res, boolean synonyms) throws Exception {
        Object c = get(admin.describeConfigs(List.of(res),
            new DescribeConfigsOptions().includeSynonyms(synonyms)).values().get(res));
        if (!(c instanceof Config)) {
            out("describeConfigs " + res, c);
            return;
        }
        TreeMap<String, ConfigEntry> entries = new TreeMap<>();
        for (ConfigEntry e : ((Config) c).entries())
            entries.put(e.name(), e);
        for (ConfigEntry e : entries.values())
            out("describeConfigs " + res.type() + " " + res.name(), e.name() + "=" + e.value()
                + " source=" + e.source() + " sensitive=" + e.isSensitive()
                + " readOnly=" + e.isReadOnly() + " type=" + e.type()
                + " synonyms=" + e.synonyms());
    }

    static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }

    static void admin(String bootstrap, String prefix) throws Exception {
        NAMES.put(bootstrap, "BROKER");
        NAMES.put("/127.0.0.1", "CLIENT-HOST");
        String t3 = prefix + "-t3", t1 = prefix + "-t1";
        String classic = prefix + "-classic", consumer = prefix + "-consumer";
        String empty = prefix + "-empty", streams = prefix + "-streams", missing = prefix + "-missing";
        String mixedGroup = prefix + "-mixed";
        List<String> all = List.of(classic, consumer, empty, streams, missing, mixedGroup);
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(p)) {
            produce(bootstrap, t3, 3, 12);
            produce(bootstrap, t1, 1, 4);
            TopicPartition t30 = new TopicPartition(t3, 0), t31 = new TopicPartition(t3, 1),
                t32 = new TopicPartition(t3, 2), t10 = new TopicPartition(t1, 0);

            // Two static members, one of each protocol; an empty group with offsets.
            KafkaConsumer<String, String> cc = join(bootstrap, classic, t3, "classic", classic + "-i", 3);
            cc.commitSync(Map.of(t30, new OffsetAndMetadata(1), t31, new OffsetAndMetadata(2, "two"),
                                 t32, new OffsetAndMetadata(3)));
            KafkaConsumer<String, String> nc = join(bootstrap, consumer, t1, "consumer", consumer + "-i", 1);
            nc.commitSync(Map.of(t10, new OffsetAndMetadata(2)));
            List<KafkaConsumer<String, String>> mixed = mixedGroup(admin, bootstrap, mixedGroup, t1);
            out("alterConsumerGroupOffsets " + empty, get(admin.alterConsumerGroupOffsets(empty,
                Map.of(t30, new OffsetAndMetadata(4), t31, new OffsetAndMetadata(0, "zero"),
                       t10, new OffsetAndMetadata(1))).all()));

            listGroups(admin, prefix, "all", new ListGroupsOptions());
            listGroups(admin, prefix, "forConsumerGroups", ListGroupsOptions.forConsumerGroups());
            listGroups(admin, prefix, "forStreamsGroups", ListGroupsOptions.forStreamsGroups());
            for (GroupType t : List.of(GroupType.CLASSIC, GroupType.CONSUMER, GroupType.STREAMS,
                                       GroupType.SHARE))
                listGroups(admin, prefix, "type " + t, new ListGroupsOptions().withTypes(Set.of(t)));
            for (GroupState s : List.of(GroupState.STABLE, GroupState.EMPTY, GroupState.DEAD))
                listGroups(admin, prefix, "state " + s, new ListGroupsOptions().inGroupStates(Set.of(s)));
            listGroups(admin, prefix, "type CONSUMER state STABLE", new ListGroupsOptions()
                .withTypes(Set.of(GroupType.CONSUMER)).inGroupStates(Set.of(GroupState.STABLE)));
            listGroups(admin, prefix, "protocolType consumer",
                       new ListGroupsOptions().withProtocolTypes(Set.of("consumer")));

            describeConsumerGroups(admin, "live", all);
            describeStreamsGroups(admin, List.of(streams, classic, missing));
            listOffsets(admin, "initial", List.of(classic, consumer, empty, streams, missing));

            out("alterConsumerGroupOffsets " + empty, get(admin.alterConsumerGroupOffsets(empty,
                Map.of(t31, new OffsetAndMetadata(5, "five"), t32, new OffsetAndMetadata(6))).all()));
            out("alterConsumerGroupOffsets " + classic, get(admin.alterConsumerGroupOffsets(classic,
                Map.of(t30, new OffsetAndMetadata(5))).all()));
            out("alterConsumerGroupOffsets " + consumer, get(admin.alterConsumerGroupOffsets(consumer,
                Map.of(t10, new OffsetAndMetadata(3))).all()));
            out("alterConsumerGroupOffsets " + empty + " missing topic", get(admin.alterConsumerGroupOffsets(
                empty, Map.of(new TopicPartition(missing + "-topic", 0), new OffsetAndMetadata(1))).all()));
            out("alterConsumerGroupOffsets " + streams, get(admin.alterConsumerGroupOffsets(streams,
                Map.of(t30, new OffsetAndMetadata(1))).all()));
            listOffsets(admin, "altered", List.of(empty, classic, consumer));
            var some = admin.listConsumerGroupOffsets(Map.of(empty, new ListConsumerGroupOffsetsSpec()
                .topicPartitions(List.of(t30, t32, t10, new TopicPartition(missing + "-topic", 0)))))
                .partitionsToOffsetAndMetadata(empty);
            Object o = get(some);
            out("listConsumerGroupOffsets partitions " + empty,
                o instanceof Map ? sortedOffsets((Map<?, ?>) o) : o);

            var del = admin.deleteConsumerGroupOffsets(empty, Set.of(t30, t10));
            out("deleteConsumerGroupOffsets " + empty, get(del.all()) + " " + t30 + " "
                + get(del.partitionResult(t30)) + " " + t10 + " " + get(del.partitionResult(t10)));
            out("deleteConsumerGroupOffsets " + classic,
                get(admin.deleteConsumerGroupOffsets(classic, Set.of(t30)).all()));
            out("deleteConsumerGroupOffsets " + consumer,
                get(admin.deleteConsumerGroupOffsets(consumer, Set.of(t10)).all()));
            out("deleteConsumerGroupOffsets " + streams,
                get(admin.deleteConsumerGroupOffsets(streams, Set.of(t30)).all()));
            out("deleteConsumerGroupOffsets " + missing,
                get(admin.deleteConsumerGroupOffsets(missing, Set.of(t10)).all()));
            listOffsets(admin, "deleted", List.of(empty));

            out("deleteConsumerGroups live", "");
            var dg = admin.deleteConsumerGroups(List.of(classic, consumer)).deletedGroups();
            out("deleteConsumerGroups " + classic, get(dg.get(classic)));
            out("deleteConsumerGroups " + consumer, get(dg.get(consumer)));

            // Static members stay in their groups when they close; dynamic
            // ones leave.
            cc.close();
            nc.close();
            mixed.get(1).close();
            mixed.get(0).close();
            removeMembers(admin, classic, classic + "-i");
            removeMembers(admin, classic, classic + "-unknown");
            removeMembers(admin, consumer, consumer + "-i");
            removeMembers(admin, missing, missing + "-i");
            describeConsumerGroups(admin, "removed", List.of(classic, consumer, mixedGroup));

            var dg2 = admin.deleteConsumerGroups(all).deletedGroups();
            for (String g : all)
                out("deleteConsumerGroups " + g, get(dg2.get(g)));
            listGroups(admin, prefix, "after delete", new ListGroupsOptions());

            DescribeClusterResult dc = admin.describeCluster(
                new DescribeClusterOptions().includeAuthorizedOperations(true));
            List<String> nodes = new ArrayList<>();
            for (Node n : dc.nodes().get())
                nodes.add(n.toString());
            out("describeCluster", "clusterId=" + dc.clusterId().get() + " controller="
                + dc.controller().get() + " nodes=" + nodes + " authorizedOperations="
                + ops(dc.authorizedOperations().get()));

            var dt = admin.describeTopics(List.of(t3, t1, missing + "-topic"),
                new DescribeTopicsOptions().includeAuthorizedOperations(true)).topicNameValues();
            for (String t : List.of(t3, t1, missing + "-topic")) {
                Object d = get(dt.get(t));
                if (d instanceof TopicDescription) {
                    TopicDescription td = (TopicDescription) d;
                    NAMES.putIfAbsent(td.topicId().toString(), "TOPICID-" + t);
                    d = td.toString().replace(String.valueOf(td.authorizedOperations()),
                                              ops(td.authorizedOperations()));
                }
                out("describeTopics " + t, d);
            }

            ConfigResource tr = new ConfigResource(ConfigResource.Type.TOPIC, t3);
            ConfigResource gr = new ConfigResource(ConfigResource.Type.GROUP, consumer);
            alterConfigs(admin, "topic set", tr, List.of(set("retention.ms", "3600000"),
                set("max.message.bytes", "500000")));
            alterConfigs(admin, "topic append", tr, List.of(new AlterConfigOp(
                new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND)));
            alterConfigs(admin, "topic delete", tr, List.of(new AlterConfigOp(
                new ConfigEntry("max.message.bytes", ""), AlterConfigOp.OpType.DELETE)));
            alterConfigs(admin, "topic unknown config", tr, List.of(set("no.such.config", "1")));
            alterConfigs(admin, "topic bad value", tr, List.of(set("retention.ms", "soon")));
            alterConfigs(admin, "missing topic", new ConfigResource(ConfigResource.Type.TOPIC,
                missing + "-topic"), List.of(set("retention.ms", "1000")));
            alterConfigs(admin, "group set", gr, List.of(set("consumer.session.timeout.ms", "50000"),
                set("consumer.heartbeat.interval.ms", "6000")));
            alterConfigs(admin, "group delete", gr, List.of(new AlterConfigOp(
                new ConfigEntry("consumer.heartbeat.interval.ms", ""), AlterConfigOp.OpType.DELETE)));
            alterConfigs(admin, "group out of range", gr, List.of(set("consumer.session.timeout.ms", "1")));
            alterConfigs(admin, "group unknown config", gr, List.of(set("no.such.config", "1")));
            out("incrementalAlterConfigs topic validateOnly", get(admin.incrementalAlterConfigs(
                Map.of(tr, List.of(set("retention.ms", "1000"))),
                new AlterConfigsOptions().validateOnly(true)).all()));
            describeConfigs(admin, tr, false);
            describeConfigs(admin, gr, false);
            describeConfigs(admin, new ConfigResource(ConfigResource.Type.TOPIC, t1), true);
            describeConfigs(admin, new ConfigResource(ConfigResource.Type.GROUP, classic), true);
            describeConfigs(admin, new ConfigResource(ConfigResource.Type.TOPIC, missing + "-topic"), false);
        }
    }
}
