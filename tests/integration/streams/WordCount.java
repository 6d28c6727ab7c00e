// SPDX-License-Identifier: Apache-2.0
// A Kafka Streams word count: the application of the Kafka Streams tests.
//
// Reads lines from the input topic, splits them into words, repartitions by
// word (groupBy), counts into the store "counts" (changelogged) and writes
// every new count to the output topic. Runs with group.protocol=streams and
// at-least-once processing unless processing.guarantee is given
// (test_kafka_streams_eos: exactly_once_v2).
//
// Run with the kafka-streams classpath as a single source file:
//   java -cp CLASSPATH WordCount.java KEY=VALUE...
// Every KEY=VALUE is a Streams config, except these of the application:
//   input=TOPIC output=TOPIC (required)
//
// It prints one line per event on stdout, flushed at once, for the test:
//   STATE <old> <new>       a KafkaStreams state change
//   ERROR <exception>       an uncaught exception (the thread is replaced)
// and closes cleanly (leaving the group) when stdin reads "close" or ends.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

public final class WordCount {
    private WordCount() {}

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
        String input = null;
        String output = null;
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("not KEY=VALUE: " + arg);
            }
            String key = arg.substring(0, eq);
            String value = arg.substring(eq + 1);
            if (key.equals("input")) {
                input = value;
            } else if (key.equals("output")) {
                output = value;
            } else {
                props.put(key, value);
            }
        }
        if (input == null || output == null) {
            throw new IllegalArgumentException("input=TOPIC and output=TOPIC are required");
        }

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
            .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
            .filter((key, word) -> !word.isEmpty())
            .groupBy((key, word) -> word, Grouped.with("words", Serdes.String(), Serdes.String()))
            .count(Materialized.as("counts"))
            .toStream()
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(props), props);
        streams.setStateListener((now, before) -> say("STATE " + before + " " + now));
        streams.setUncaughtExceptionHandler(e -> {
            say("ERROR " + e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> streams.close(Duration.ofSeconds(30))));
        streams.start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.trim().equals("close")) {
            // wait for the test's word
        }
        streams.close(Duration.ofSeconds(30));
        say("CLOSED");
        System.exit(0);
    }
}
