// SPDX-License-Identifier: Apache-2.0
// Kafka's own Java clients (the reference classpath) for
// test_java_leader_epoch.py, run as a single-file program:
//
//   produce BOOTSTRAP TOPIC N            N records to partition 0, acks=all
//   commit BOOTSTRAP GROUP TOPIC OFFSET EPOCH
//                                        Admin.alterConsumerGroupOffsets of
//                                        partition 0 with that leader epoch
//   consume BOOTSTRAP GROUP TOPIC RESET PROTOCOL
//                                        a consumer of the group (RESET:
//                                        auto.offset.reset, PROTOCOL:
//                                        classic or consumer) polls until it
//                                        has records, prints "first OFFSET
//                                        EPOCH" of the first and "position P",
//                                        commits nothing and leaves
//
// Errors print "error CLASS: MESSAGE" and exit 1.
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class LeaderEpochCheck {
    public static void main(String[] a) throws Exception {
        try {
            switch (a[0]) {
            case "produce": produce(a[1], a[2], Integer.parseInt(a[3])); break;
            case "commit": commit(a[1], a[2], a[3], Long.parseLong(a[4]), Integer.parseInt(a[5])); break;
            case "consume": consume(a[1], a[2], a[3], a[4], a[5]); break;
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

    static void produce(String bootstrap, String topic, int n) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
            for (int i = 0; i < n; i++)
                pr.send(new ProducerRecord<>(topic, 0, null, "v" + i)).get();
        }
        System.out.println("produced " + n);
    }

    static void commit(String bootstrap, String group, String topic, long offset, int epoch)
        throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0),
                new OffsetAndMetadata(offset, Optional.of(epoch), ""))).all().get();
        }
        System.out.println("committed " + offset + " at epoch " + epoch);
    }

    static void consume(String bootstrap, String group, String topic, String reset,
                        String protocol) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("group.protocol", protocol);
        p.put("auto.offset.reset", reset);
        p.put("enable.auto.commit", "false");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 60000;
            while (System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(200));
                if (rs.isEmpty())
                    continue;
                ConsumerRecord<String, String> r = rs.records(tp).get(0);
                System.out.println("first " + r.offset() + " " + r.leaderEpoch().orElse(-1));
                System.out.println("position " + c.position(tp));
                return;
            }
            throw new IllegalStateException("no records within 60 s");
        }
    }
}
