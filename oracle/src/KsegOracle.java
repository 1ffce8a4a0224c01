// The workloads kseg's parity tests run against a real Kafka broker, with the real Java clients,
// and the broker's own answers the tests compare kseg with. Compiled by oracle/setup with javac
// against the pinned kafka-clients; run by tests/oracle/mod.rs.
//
//   KsegOracle produce BOOTSTRAP PHASE      write the deterministic workload (phase 1, or 2 after a restart)
//   KsegOracle query BOOTSTRAP OUT.ndjson   the broker's answers: ListOffsets, group offsets, transactions
//   KsegOracle groups BOOTSTRAP N           commit offsets for N generated group ids (find-group-partition)
//   KsegOracle shape BOOTSTRAP              the same deterministic workload for a real broker and kseg
//                                           mini-broker, whose data dirs tests/oracle_shape.rs compares
//   KsegOracle mini-admin BOOTSTRAP         AdminClient and a classic consumer group against kseg
//                                           mini-broker, every answer asserted (exit 1 on a mismatch)
//   KsegOracle expiry BOOTSTRAP OUT.ndjson   commits of a classic group that then goes Empty, a KIP-848
//                                           group whose member leaves, and a standalone consumer (offset expiry)
//   KsegOracle rebalance BOOTSTRAP GROUP ROUNDS OUT.ndjson   a classic group rebalanced 2*ROUNDS+1 times,
//                                           every client's onPartitionsAssigned (generation, member id) to OUT
//   KsegOracle replicas BOOTSTRAP ACTION TOPIC ...   a replicated topic on a cluster (kseg diff):
//       create TOPIC                                 one partition on brokers 1, 2, 3, unclean election on
//       produce TOPIC ACKS FROM COUNT PER_BATCH OUT  records FROM.. with acks=ACKS, the acknowledged offsets to OUT
//       wait TOPIC LEADER ISR_SIZE                   until partition 0 has that leader and ISR size
//       elect TOPIC                                  an unclean leader election of partition 0
//   KsegOracle rescue-source BOOTSTRAP      the source of the rescue tests: topic rs (3 partitions, every
//                                           codec, committed, aborted and one open transaction)
//   KsegOracle consume BOOTSTRAP TOPIC OUT  every record a read_committed consumer is given, NDJSON
//   KsegOracle kip848-consume BOOTSTRAP GROUP   a KIP-848 group (group.protocol=consumer) of two Java
//                                           consumers on a 4-partition topic: the split, one leaves, the
//                                           other takes all; commitSync throughout; exit 1 unless every
//                                           record was read exactly once; then deleteConsumerGroups
//   KsegOracle bench-produce BOOTSTRAP TOPIC N  N records of the data workload into 3 partitions, as fast
//                                           as the idempotent producer goes (acks=all); prints the time
//   KsegOracle retention BOOTSTRAP OUT.ndjson   the retention topics of tests/oracle/retention.rs (rt-*):
//                                           records stamped days old, recent, and one five years ahead;
//                                           compact and compact,delete; DeleteRecords; retention.bytes;
//                                           a cluster-wide dynamic log.retention.ms. Facts to OUT
//   KsegOracle retention-hw BOOTSTRAP create|more   rt-hw on brokers 1 and 2 (leader 1), records ten
//                                           days old: 30 with acks=all (create), 60 more with acks=1
//                                           while broker 2 is stopped (more): the high watermark stays
//
// Everything sent is fixed by the code (keys, values, headers, CreateTime timestamps, partitions,
// batch boundaries by flush), except what the broker stamps itself (LogAppendTime) and the few
// "recent" records of the retention topic, which must be newer than retention.ms.

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;

import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.internals.AppInfoParser;

public class KsegOracle {
    /** 2026-01-01T00:00:00Z: the CreateTime of the workload's first record. */
    static final long T0 = 1_767_225_600_000L;
    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};
    static final int SEGMENT_BYTES = 16 * 1024;
    /** The replication factor of the topics `createTopic` makes (flood's fifth argument). */
    static short replicationFactor = 1;

    public static void main(String[] args) throws Exception {
        String bootstrap = args[1];
        switch (args[0]) {
            case "produce" -> produce(bootstrap, Integer.parseInt(args[2]));
            case "query" -> query(bootstrap, Path.of(args[2]));
            case "groups" -> manyGroups(bootstrap, Integer.parseInt(args[2]));
            case "flood" -> {
                if (args.length > 4) replicationFactor = Short.parseShort(args[4]);
                flood(bootstrap, Integer.parseInt(args[2]), args.length > 3 ? Path.of(args[3]) : null);
            }
            case "compact-swap" -> compactSwap(bootstrap);
            case "aborted-txn" -> abortedTxn(bootstrap);
            case "mini-admin" -> miniAdmin(bootstrap);
            case "shape" -> shape(bootstrap);
            case "replicas" -> replicas(bootstrap, Arrays.copyOfRange(args, 2, args.length));
            case "expiry" -> expiry(bootstrap, Path.of(args[2]));
            case "rebalance" -> rebalance(bootstrap, args[2], Integer.parseInt(args[3]), Path.of(args[4]));
            case "rescue-source" -> rescueSource(bootstrap);
            case "consume" -> consume(bootstrap, args[2], Path.of(args[3]));
            case "kip848-consume" -> kip848Consume(bootstrap, args[2]);
            case "bench-produce" -> benchProduce(bootstrap, args[2], Integer.parseInt(args[3]));
            case "retention" -> retention(bootstrap, Path.of(args[2]));
            case "retention-hw" -> retentionHw(bootstrap, args[2]);
            case "compact" -> compact(bootstrap);
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
        // The open transaction's producer is never closed: exit without waiting for its threads.
        System.exit(0);
    }

    static Properties common(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("request.timeout.ms", "20000");
        p.put("default.api.timeout.ms", "60000");
        return p;
    }

    static KafkaProducer<byte[], byte[]> producer(String bootstrap, Map<String, String> extra) {
        Properties p = common(bootstrap);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        p.put("acks", "all");
        p.put("linger.ms", "1000"); // batches end at flush(), not by timing
        p.put("batch.size", "1000000");
        p.putAll(extra);
        return new KafkaProducer<>(p);
    }

    static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, Map<String, String> extra) {
        Properties p = common(bootstrap);
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        p.putAll(extra);
        return new KafkaConsumer<>(p);
    }

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /** Creates a topic with a small segment size: `segment.bytes` below 1 MiB is refused by Kafka 4.x,
     *  which has `internal.segment.bytes` for that instead. */
    static void createTopic(Admin admin, String name, int partitions, Map<String, String> configs) throws Exception {
        createTopic(admin, configs, c -> new NewTopic(name, partitions, replicationFactor).configs(c));
    }

    /** Partition p's replicas on brokers `assignment[p]`, the first its preferred leader. */
    static void createAssigned(Admin admin, String name, List<List<Integer>> assignment) throws Exception {
        Map<Integer, List<Integer>> replicas = new HashMap<>();
        for (int p = 0; p < assignment.size(); p++) replicas.put(p, assignment.get(p));
        createTopic(admin, Map.of(), c -> new NewTopic(name, replicas).configs(c));
    }

    static void createTopic(Admin admin, Map<String, String> configs,
                            java.util.function.Function<Map<String, String>, NewTopic> topic) throws Exception {
        Map<String, String> withSegment = new HashMap<>(configs);
        withSegment.put("segment.bytes", Integer.toString(SEGMENT_BYTES));
        try {
            admin.createTopics(List.of(topic.apply(withSegment))).all().get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) return;
            if (!(e.getCause() instanceof InvalidConfigurationException)) throw e;
            withSegment.remove("segment.bytes");
            withSegment.put("internal.segment.bytes", Integer.toString(SEGMENT_BYTES));
            admin.createTopics(List.of(topic.apply(withSegment))).all().get();
        }
    }

    /** Record i of a data topic: keys with nulls and binary bytes, values of varied length, some
     *  null values, headers on some (one with a null value), and every 7th timestamp late. */
    static ProducerRecord<byte[], byte[]> dataRecord(String topic, int partition, int i, long base) {
        byte[] key;
        if (i % 11 == 0) key = null;
        else if (i % 13 == 0) key = new byte[] {0, (byte) 0xff, (byte) i, 10, 27, (byte) 0x80};
        else key = utf8("key-" + (i % 37));
        byte[] value = i % 17 == 5 ? null : utf8("value-" + i + "-" + "x".repeat(i % 50) + (i % 19 == 0 ? "\u00e9\u4e2d\n\t" : ""));
        long ts = i % 7 == 3 ? base - 5_000 + i : base + i * 10L;
        RecordHeaders headers = new RecordHeaders();
        if (i % 5 == 0) headers.add("h-one", utf8("v" + i));
        if (i % 10 == 0) headers.add("h-null", null);
        if (i % 15 == 0) headers.add("h\u00fc", new byte[] {1, 2, 3, (byte) 0xfe});
        return new ProducerRecord<>(topic, partition, ts, key, value, headers);
    }

    static void produce(String bootstrap, int phase) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap))) {
            if (phase == 1) createTopics(admin);
            // Each codec, idempotent (the Java producer's default) and two partitions; one flush per batch.
            for (String codec : CODECS) {
                try (var producer = producer(bootstrap, Map.of("compression.type", codec))) {
                    batches(producer, "codec-" + codec, 2, phase == 1 ? 0 : 300, 300, 10, T0 + (phase - 1) * 100_000L);
                }
            }
            try (var producer = producer(bootstrap, Map.of("enable.idempotence", "false", "acks", "1", "compression.type", "gzip"))) {
                batches(producer, "plain", 1, phase == 1 ? 0 : 100, 100, 7, T0);
            }
            try (var producer = producer(bootstrap, Map.of("compression.type", "lz4"))) {
                batches(producer, "log-append-time", 1, phase == 1 ? 0 : 150, 150, 10, T0);
            }
            transactions(bootstrap, phase);
            if (phase == 1) {
                compacted(bootstrap);
                deleteRecords(bootstrap, admin);
                retention(bootstrap);
                classicGroup(bootstrap);
                consumerProtocolGroup(bootstrap, admin);
            } else {
                // More commits after the restart: the group's records go on in a new leader epoch.
                try (var c = consumer(bootstrap, Map.of("group.id", "classic-group", "group.protocol", "classic"))) {
                    c.subscribe(List.of("group-src"));
                    pollUntilAssigned(c);
                    c.commitSync();
                }
            }
        }
    }

    static void createTopics(Admin admin) throws Exception {
        for (String codec : CODECS) createTopic(admin, "codec-" + codec, 2, Map.of());
        createTopic(admin, "plain", 1, Map.of());
        createTopic(admin, "log-append-time", 1, Map.of("message.timestamp.type", "LogAppendTime"));
        createTopic(admin, "txn", 2, Map.of());
        createTopic(admin, "compacted", 1, Map.of("cleanup.policy", "compact", "min.cleanable.dirty.ratio", "0.01",
                "delete.retention.ms", "86400000", "min.compaction.lag.ms", "0"));
        createTopic(admin, "delete-records", 1, Map.of());
        createTopic(admin, "retention", 1, Map.of("retention.ms", "3600000"));
        createTopic(admin, "group-src", 4, Map.of());
    }

    static void batches(KafkaProducer<byte[], byte[]> producer, String topic, int partitions, int from, int count, int perBatch, long base) throws Exception {
        List<Future<RecordMetadata>> pending = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            for (int p = 0; p < partitions; p++) pending.add(producer.send(dataRecord(topic, p, i, base)));
            if ((i - from + 1) % perBatch == 0) flush(producer, pending);
        }
        flush(producer, pending);
    }

    static void flush(KafkaProducer<byte[], byte[]> producer, List<Future<RecordMetadata>> pending) throws Exception {
        producer.flush();
        for (var f : pending) f.get(60, TimeUnit.SECONDS);
        pending.clear();
    }

    static KafkaProducer<byte[], byte[]> txnProducer(String bootstrap, String id) {
        var producer = producer(bootstrap, Map.of("transactional.id", id, "transaction.timeout.ms", "600000"));
        producer.initTransactions();
        return producer;
    }

    /** Committed and aborted transactions; an abort inside another producer's open transaction (its
     *  aborted-transaction entry carries that transaction's first offset as the LSO); a
     *  transactional offset commit; and, in phase 2, one transaction left open at the broker's stop. */
    static void transactions(String bootstrap, int phase) throws Exception {
        long base = T0 + 1_000_000L * phase;
        try (var a = txnProducer(bootstrap, "txn-a"); var b = txnProducer(bootstrap, "txn-b")) {
            a.beginTransaction();
            for (int i = 0; i < 5; i++) a.send(new ProducerRecord<>("txn", 0, base + i, utf8("a" + i), utf8("a-value-" + i))).get();
            b.beginTransaction();
            for (int i = 0; i < 5; i++) b.send(new ProducerRecord<>("txn", 0, base + 10 + i, utf8("b" + i), utf8("b-value-" + i))).get();
            b.send(new ProducerRecord<>("txn", 1, base + 20, utf8("b-p1"), utf8("aborted on p1"))).get();
            b.abortTransaction();
            for (int i = 5; i < 10; i++) a.send(new ProducerRecord<>("txn", 0, base + 30 + i, utf8("a" + i), utf8("a-value-" + i))).get();
            a.send(new ProducerRecord<>("txn", 1, base + 50, utf8("a-p1"), utf8("committed on p1"))).get();
            a.commitTransaction();
            for (int round = 0; round < 6; round++) {
                b.beginTransaction();
                for (int i = 0; i < 4; i++) b.send(new ProducerRecord<>("txn", round % 2, base + 100 + round * 10 + i, utf8("r" + round), utf8("round-" + round + "-" + i))).get();
                if (round % 3 == 2) b.abortTransaction(); else b.commitTransaction();
            }
        }
        if (phase == 1) {
            // Consume-transform-produce: offsets committed inside a transaction (TxnOffsetCommit).
            try (var p = txnProducer(bootstrap, "txn-offsets")) {
                p.beginTransaction();
                p.send(new ProducerRecord<>("txn", 1, base + 500, utf8("t"), utf8("with offsets"))).get();
                var offsets = Map.of(new TopicPartition("codec-none", 0), new OffsetAndMetadata(42, "txn-meta"),
                        new TopicPartition("codec-none", 1), new OffsetAndMetadata(7));
                p.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata("txn-group"));
                p.commitTransaction();
            }
        } else {
            // Left open: the broker stops with this transaction Ongoing (a 10-minute timeout).
            var open = txnProducer(bootstrap, "txn-open");
            open.beginTransaction();
            for (int i = 0; i < 3; i++) open.send(new ProducerRecord<>("txn", 1, base + 900 + i, utf8("open" + i), utf8("still open"))).get();
            open.flush();
        }
    }

    /** 50 keys written 12 times each over rolled segments, then tombstones for ten of them; the
     *  test waits for the log cleaner to have cleaned the partition. */
    static void compacted(String bootstrap) throws Exception {
        try (var producer = producer(bootstrap, Map.of())) {
            List<Future<RecordMetadata>> pending = new ArrayList<>();
            for (int round = 0; round < 12; round++) {
                for (int k = 0; k < 50; k++) {
                    pending.add(producer.send(new ProducerRecord<>("compacted", 0, T0 + round * 1000L + k, utf8("ck-" + k), utf8("round-" + round + "-" + "y".repeat(k)))));
                }
                flush(producer, pending);
            }
            for (int k = 0; k < 10; k++) pending.add(producer.send(new ProducerRecord<>("compacted", 0, T0 + 20_000L + k, utf8("ck-" + k), (byte[]) null)));
            flush(producer, pending);
            // Enough further data to roll the segment holding the tombstones, so that it is cleanable.
            for (int k = 0; k < 200; k++) {
                pending.add(producer.send(new ProducerRecord<>("compacted", 0, T0 + 30_000L + k, utf8("filler-" + (k % 20)), utf8("f".repeat(100)))));
                if (k % 20 == 19) flush(producer, pending);
            }
        }
    }

    /** Topic `swap` (1 partition): 60 keys written 40 times by the idempotent producer, one
     *  batch a round whose timestamps are a second past the last round's, so that with
     *  `segment.ms` 100 every round rolls a segment; written under the delete policy, then the
     *  policy altered to compact, so that the log cleaner runs once, over every rolled segment at
     *  once (one group: 40 small segments are far below `segment.bytes`). Replaced segments are
     *  deleted only after an hour (`file.delete.delay.ms`), staying as `.deleted` files: the test
     *  rebuilds from them the states a SIGKILL leaves during the cleaner's swap. */
    static void compactSwap(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap))) {
            admin.createTopics(List.of(new NewTopic("swap", 1, replicationFactor).configs(Map.of(
                    "segment.ms", "100", "file.delete.delay.ms", "3600000", "min.cleanable.dirty.ratio", "0.01",
                    "min.compaction.lag.ms", "0", "delete.retention.ms", "86400000")))).all().get();
            try (var producer = producer(bootstrap, Map.of())) {
                List<Future<RecordMetadata>> pending = new ArrayList<>();
                for (int round = 0; round < 40; round++) {
                    for (int k = 0; k < 60; k++) {
                        pending.add(producer.send(new ProducerRecord<>("swap", 0, T0 + round * 1000L + k, utf8("sk-" + k),
                                utf8("round-" + round + "-" + "s".repeat(k * 3)))));
                    }
                    flush(producer, pending);
                }
            }
            var resource = new ConfigResource(ConfigResource.Type.TOPIC, "swap");
            admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                    new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET)))).all().get();
        }
    }

    static void deleteRecords(String bootstrap, Admin admin) throws Exception {
        try (var producer = producer(bootstrap, Map.of())) {
            batches(producer, "delete-records", 1, 0, 500, 25, T0);
        }
        admin.deleteRecords(Map.of(new TopicPartition("delete-records", 0), RecordsToDelete.beforeOffset(260))).all().get();
    }

    /** Old records (CreateTime in January) then recent ones: retention.ms of an hour deletes the
     *  old segments once the broker's retention check runs. */
    static void retention(String bootstrap) throws Exception {
        try (var producer = producer(bootstrap, Map.of())) {
            batches(producer, "retention", 1, 0, 300, 20, T0);
            List<Future<RecordMetadata>> pending = new ArrayList<>();
            long now = System.currentTimeMillis();
            for (int i = 0; i < 20; i++) pending.add(producer.send(new ProducerRecord<>("retention", 0, now + i, utf8("recent"), utf8("recent-" + i))));
            flush(producer, pending);
        }
        try (var producer = producer(bootstrap, Map.of())) {
            batches(producer, "group-src", 4, 0, 100, 10, T0);
        }
    }

    static void pollUntilAssigned(KafkaConsumer<byte[], byte[]> c) {
        long deadline = System.currentTimeMillis() + 60_000;
        while (c.assignment().isEmpty() && System.currentTimeMillis() < deadline) c.poll(Duration.ofMillis(200));
        if (c.assignment().isEmpty()) throw new IllegalStateException("no assignment within 60 s");
    }

    /** Classic protocol: one member commits part of what it read, a second joins (a rebalance), both
     *  commit, then leave. Offsets committed are whole numbers of records read, so fixed. */
    static void classicGroup(String bootstrap) throws Exception {
        var props = Map.of("group.id", "classic-group", "group.protocol", "classic", "client.id", "classic-1",
                "max.poll.records", "30");
        try (var c1 = consumer(bootstrap, props)) {
            c1.subscribe(List.of("group-src"));
            pollUntilAssigned(c1);
            Map<TopicPartition, OffsetAndMetadata> first = new HashMap<>();
            for (TopicPartition tp : c1.assignment()) first.put(tp, new OffsetAndMetadata(10 + tp.partition(), "first-commit"));
            c1.commitSync(first);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            Future<?> second = pool.submit(() -> {
                try (var c2 = consumer(bootstrap, Map.of("group.id", "classic-group", "group.protocol", "classic",
                        "client.id", "classic-2", "group.instance.id", "static-member-2"))) {
                    c2.subscribe(List.of("group-src"));
                    long deadline = System.currentTimeMillis() + 60_000;
                    while (c2.assignment().isEmpty() && System.currentTimeMillis() < deadline) c2.poll(Duration.ofMillis(200));
                    Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<>();
                    for (TopicPartition tp : c2.assignment()) mine.put(tp, new OffsetAndMetadata(50 + tp.partition()));
                    c2.commitSync(mine);
                }
                return null;
            });
            long deadline = System.currentTimeMillis() + 60_000;
            while (!second.isDone() && System.currentTimeMillis() < deadline) c1.poll(Duration.ofMillis(200));
            second.get();
            pool.shutdown();
            Map<TopicPartition, OffsetAndMetadata> last = new HashMap<>();
            for (TopicPartition tp : c1.assignment()) last.put(tp, new OffsetAndMetadata(80 + tp.partition(), ""));
            if (!last.isEmpty()) c1.commitSync(last);
        }
    }

    /** KIP-848's consumer protocol with two members: `a` joins and takes the 4 partitions of kip848-src,
     *  `b` joins and the assignment splits 2/2 (`a` revokes two), `b` commits and leaves, `a` takes all
     *  four again and reads the rest. Every poll is followed by commitSync, revocations commit first, so
     *  each of the 200 records is read exactly once across the members. Prints one JSON line. The
     *  empty group is deleted at the end. */
    static void kip848Consume(String bootstrap, String group) throws Exception {
        String topic = "kip848-src";
        try (Admin admin = Admin.create(common(bootstrap))) {
            createTopic(admin, topic, 4, Map.of());
        }
        try (var p = producer(bootstrap, Map.of())) {
            for (int i = 0; i < 120; i++) p.send(new ProducerRecord<>(topic, i % 4, utf8("k" + i), utf8("v" + i)));
            p.flush();
        }
        Map<String, Integer> seen = new HashMap<>();
        var a = consumer(bootstrap, Map.of("group.id", group, "group.protocol", "consumer", "client.id", "kip848-a"));
        var b = consumer(bootstrap, Map.of("group.id", group, "group.protocol", "consumer", "client.id", "kip848-b"));
        try {
            a.subscribe(List.of(topic), committing(a));
            pollWhile(List.of(a), seen, () -> a.assignment().size() < 4, "a takes all 4 partitions");
            b.subscribe(List.of(topic), committing(b));
            pollWhile(List.of(a, b), seen, () -> a.assignment().size() != 2 || b.assignment().size() != 2, "the split 2/2");
            if (!Collections.disjoint(a.assignment(), b.assignment())) throw new IllegalStateException("overlap");
            pollWhile(List.of(a, b), seen, () -> seen.size() < 120, "the first 120 records");
            describeKip848(bootstrap, group);
            b.close();
            pollWhile(List.of(a), seen, () -> a.assignment().size() < 4, "a takes all 4 again");
            try (var p = producer(bootstrap, Map.of())) {
                for (int i = 120; i < 200; i++) p.send(new ProducerRecord<>(topic, i % 4, utf8("k" + i), utf8("v" + i)));
                p.flush();
            }
            pollWhile(List.of(a), seen, () -> seen.size() < 200, "all 200 records");
            a.commitSync();
            var meta = a.groupMetadata();
            long dupes = seen.values().stream().filter(n -> n > 1).count();
            System.out.println("{\"ok\":" + (dupes == 0) + ",\"consumed\":" + seen.size() + ",\"duplicates\":" + dupes
                    + ",\"memberEpoch\":" + meta.generationId() + "}");
            if (dupes != 0) System.exit(1);
        } finally {
            a.close();
        }
        // The group is empty now: DeleteGroups removes it (its offsets and its own records).
        try (Admin admin = Admin.create(common(bootstrap))) {
            admin.deleteConsumerGroups(List.of(group)).all().get();
        }
    }

    /** What the admin client sees of the group while both members hold their halves: listGroups for
     *  consumer groups and describeConsumerGroups (ConsumerGroupDescribe), one JSON line. */
    static void describeKip848(String bootstrap, String group) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap))) {
            var listing = admin.listGroups(ListGroupsOptions.forConsumerGroups()).all().get().stream()
                    .filter(g -> g.groupId().equals(group)).findFirst().orElseThrow();
            var d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            List<String> members = new ArrayList<>();
            for (var m : d.members()) {
                List<String> parts = new ArrayList<>();
                for (var tp : m.assignment().topicPartitions()) parts.add(tp.toString());
                Collections.sort(parts);
                List<String> target = new ArrayList<>();
                for (var tp : m.targetAssignment().orElseThrow().topicPartitions()) target.add(tp.toString());
                Collections.sort(target);
                members.add("{\"clientId\":" + json(m.clientId()) + ",\"host\":" + json(m.host())
                        + ",\"memberEpoch\":" + m.memberEpoch().orElse(-99) + ",\"assignment\":" + json(String.join(" ", parts))
                        + ",\"target\":" + json(String.join(" ", target)) + "}");
            }
            Collections.sort(members);
            System.out.println("{\"listed\":{\"type\":" + json(listing.type().map(Object::toString).orElse(null))
                    + ",\"protocol\":" + json(listing.protocol()) + ",\"state\":" + json(listing.groupState().map(Object::toString).orElse(null))
                    + "},\"described\":{\"type\":" + json(d.type().toString()) + ",\"state\":" + json(d.groupState().toString())
                    + ",\"assignor\":" + json(d.partitionAssignor()) + ",\"groupEpoch\":" + d.groupEpoch().orElse(-99)
                    + ",\"assignmentEpoch\":" + d.targetAssignmentEpoch().orElse(-99) + ",\"members\":[" + String.join(",", members) + "]}}");
        }
    }

    static ConsumerRebalanceListener committing(KafkaConsumer<byte[], byte[]> c) {
        return new ConsumerRebalanceListener() {
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) { c.commitSync(); }
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
        };
    }

    static void pollWhile(List<KafkaConsumer<byte[], byte[]>> cs, Map<String, Integer> seen,
                          java.util.function.BooleanSupplier cond, String what) {
        long deadline = System.currentTimeMillis() + 90_000;
        while (cond.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) throw new IllegalStateException("not reached in 90 s: " + what);
            for (var c : cs) {
                var records = c.poll(Duration.ofMillis(100));
                for (var r : records) seen.merge(new String(r.value(), StandardCharsets.UTF_8), 1, Integer::sum);
                if (!records.isEmpty()) c.commitSync();
            }
        }
    }

    /** KIP-848's consumer protocol (Kafka 4.x): a member commits and leaves. Older brokers refuse the
     *  protocol; then nothing is written. */
    static void consumerProtocolGroup(String bootstrap, Admin admin) throws Exception {
        String version = AppInfoParser.getVersion();
        try (var c = consumer(bootstrap, Map.of("group.id", "consumer-group", "group.protocol", "consumer", "client.id", "kip848"))) {
            c.subscribe(List.of("group-src"));
            pollUntilAssigned(c);
            Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
            for (TopicPartition tp : c.assignment()) commit.put(tp, new OffsetAndMetadata(20 + tp.partition(), "kip848"));
            c.commitSync(commit);
        } catch (RuntimeException e) {
            System.err.println("consumer protocol not available: " + e + " (client " + version + ")");
        }
    }

    /** Fixed batches (by flush) into rolling 16 KiB segments: uncompressed and zstd idempotent
     *  producers over 2 partitions, a LogAppendTime topic, a transactional producer committing,
     *  aborting and committing, and a group's offsets committed through the admin client. */
    static void shape(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap))) {
            createTopic(admin, "shape-none", 2, Map.of());
            createTopic(admin, "shape-zstd", 2, Map.of());
            createTopic(admin, "shape-lat", 1, Map.of("message.timestamp.type", "LogAppendTime"));
            createTopic(admin, "shape-txn", 1, Map.of());
            for (String codec : List.of("none", "zstd")) {
                try (var p = producer(bootstrap, Map.of("compression.type", codec))) {
                    batches(p, "shape-" + codec, 2, 0, 400, 9, T0);
                }
            }
            try (var p = producer(bootstrap, Map.of())) {
                batches(p, "shape-lat", 1, 0, 120, 7, T0);
            }
            try (var p = txnProducer(bootstrap, "shape-txn-id")) {
                int i = 0;
                for (boolean commit : List.of(true, false, true)) {
                    p.beginTransaction();
                    for (int n = 0; n < 15; n++, i++) p.send(dataRecord("shape-txn", 0, i, T0));
                    p.flush();
                    if (commit) p.commitTransaction(); else p.abortTransaction();
                }
            }
            // DeleteRecords, then retention by time: old (January) records then recent ones under
            // retention.ms of an hour. The broker's retention check deletes the old segments and
            // those wholly before the DeleteRecords offset; wait until it has run.
            createTopic(admin, "shape-delrec", 1, Map.of());
            createTopic(admin, "shape-retention", 1, Map.of("retention.ms", "3600000"));
            try (var p = producer(bootstrap, Map.of())) {
                batches(p, "shape-delrec", 1, 0, 500, 25, T0);
            }
            admin.deleteRecords(Map.of(new TopicPartition("shape-delrec", 0), RecordsToDelete.beforeOffset(260))).all().get();
            try (var p = producer(bootstrap, Map.of())) {
                batches(p, "shape-retention", 1, 0, 300, 20, T0);
                List<Future<RecordMetadata>> pending = new ArrayList<>();
                long now = System.currentTimeMillis();
                for (int i = 0; i < 20; i++) pending.add(p.send(new ProducerRecord<>("shape-retention", 0, now + i, utf8("recent"), utf8("recent-" + i))));
                flush(p, pending);
            }
            var retained = new TopicPartition("shape-retention", 0);
            long deadline = System.currentTimeMillis() + 120_000;
            while (admin.listOffsets(Map.of(retained, OffsetSpec.earliest())).all().get().get(retained).offset() == 0) {
                if (System.currentTimeMillis() > deadline) throw new IllegalStateException("retention never ran");
                Thread.sleep(200);
            }
            admin.alterConsumerGroupOffsets("shape-group", Map.of(
                    new TopicPartition("shape-none", 0), new OffsetAndMetadata(100, "m"),
                    new TopicPartition("shape-none", 1), new OffsetAndMetadata(7))).all().get();
            // A topic with committed offsets, deleted: its dir is renamed -delete and the group
            // coordinator removes the offsets.
            createTopic(admin, "shape-gone", 1, Map.of());
            try (var p = producer(bootstrap, Map.of())) {
                batches(p, "shape-gone", 1, 0, 40, 10, T0);
            }
            admin.alterConsumerGroupOffsets("shape-group", Map.of(
                    new TopicPartition("shape-gone", 0), new OffsetAndMetadata(30))).all().get();
            admin.deleteTopics(List.of("shape-gone")).all().get();
            // Retention by size: 5 KiB kept of rolling 16 KiB segments.
            createTopic(admin, "shape-size", 1, Map.of("retention.bytes", "5000"));
            try (var p = producer(bootstrap, Map.of())) {
                batches(p, "shape-size", 1, 0, 600, 30, T0);
            }
            var sized = new TopicPartition("shape-size", 0);
            deadline = System.currentTimeMillis() + 120_000;
            while (admin.listOffsets(Map.of(sized, OffsetSpec.earliest())).all().get().get(sized).offset() == 0) {
                if (System.currentTimeMillis() > deadline) throw new IllegalStateException("size retention never ran");
                Thread.sleep(200);
            }
            // The group's records after the deletion, once the coordinator has written them.
            Thread.sleep(3000);
        }
    }

    static void expect(boolean ok, String what) {
        if (!ok) throw new IllegalStateException("mini-admin: " + what);
    }

    /** AdminClient (createTopics with configs, describeCluster, listOffsets, list/describe consumer
     *  groups, listConsumerGroupOffsets, alterConsumerGroupOffsets, describeConfigs, deleteTopics)
     *  and a classic group of two read_committed consumers (a rebalance, commitSync) against kseg
     *  mini-broker. Every answer is checked against what a Kafka broker gives for the same calls;
     *  a mismatch throws. Prints one JSON line when all pass. */
    static void miniAdmin(String bootstrap) throws Exception {
        String topic = "ja-data";
        TopicPartition p0 = new TopicPartition(topic, 0), p1 = new TopicPartition(topic, 1);
        try (Admin admin = Admin.create(common(bootstrap))) {
            // createTopics: a config the mini-broker honours, one it refuses as Kafka refuses
            // unknown ones (InvalidConfigurationException), and the topic's configs in the answer.
            var created = admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1)
                    .configs(Map.of("retention.ms", "86400000"))));
            created.all().get();
            expect(created.numPartitions(topic).get() == 2, "numPartitions");
            expect(created.config(topic).get().get("retention.ms").value().equals("86400000"), "created config");
            try {
                admin.createTopics(List.of(new NewTopic("ja-bad", 1, (short) 1)
                        .configs(Map.of("compression.type", "gzip")))).all().get();
                expect(false, "compression.type=gzip accepted");
            } catch (ExecutionException e) {
                expect(e.getCause() instanceof InvalidConfigurationException, "refusal: " + e.getCause());
            }
            try {
                admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
                expect(false, "a second createTopics succeeded");
            } catch (ExecutionException e) {
                expect(e.getCause() instanceof TopicExistsException, "exists: " + e.getCause());
            }

            var cluster = admin.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true));
            var nodes = cluster.nodes().get();
            expect(nodes.size() == 1, "one node");
            expect(cluster.controller().get().id() == nodes.iterator().next().id(), "controller");
            expect(cluster.clusterId().get() != null && !cluster.clusterId().get().isEmpty(), "cluster id");
            expect(cluster.authorizedOperations().get().containsAll(Set.of(AclOperation.DESCRIBE,
                    AclOperation.CREATE, AclOperation.ALTER, AclOperation.IDEMPOTENT_WRITE)), "cluster operations");

            // 20 idempotent records per partition, then a committed transaction (5 records) into
            // partition 0 and an aborted one (3 records) into partition 1.
            try (var prod = producer(bootstrap, Map.of())) {
                for (int i = 0; i < 40; i++) prod.send(new ProducerRecord<>(topic, i % 2, T0 + i, utf8("k" + i), utf8("v" + i)));
                prod.flush();
            }
            try (var txn = producer(bootstrap, Map.of("transactional.id", "ja-txn"))) {
                txn.initTransactions();
                txn.beginTransaction();
                for (int i = 0; i < 5; i++) txn.send(new ProducerRecord<>(topic, 0, T0 + 100 + i, utf8("c" + i), utf8("committed-" + i)));
                txn.commitTransaction();
                txn.beginTransaction();
                for (int i = 0; i < 3; i++) txn.send(new ProducerRecord<>(topic, 1, T0 + 200 + i, utf8("a" + i), utf8("aborted-" + i)));
                txn.flush();
                txn.abortTransaction();
            }
            // listOffsets: p0 holds 0-19, the transaction 20-24 and its marker 25; p1 0-19, the
            // aborted 20-22 and its marker 23.
            Map<TopicPartition, Long> latest = new HashMap<>();
            for (var iso : List.of(IsolationLevel.READ_UNCOMMITTED, IsolationLevel.READ_COMMITTED)) {
                var opts = new ListOffsetsOptions(iso);
                var earliest = admin.listOffsets(Map.of(p0, OffsetSpec.earliest(), p1, OffsetSpec.earliest()), opts).all().get();
                var end = admin.listOffsets(Map.of(p0, OffsetSpec.latest(), p1, OffsetSpec.latest()), opts).all().get();
                expect(earliest.get(p0).offset() == 0 && earliest.get(p1).offset() == 0, "earliest " + earliest);
                expect(end.get(p0).offset() == 26 && end.get(p1).offset() == 24, iso + " latest " + end);
                latest.put(p0, end.get(p0).offset());
                latest.put(p1, end.get(p1).offset());
            }
            var maxTs = admin.listOffsets(Map.of(p0, OffsetSpec.maxTimestamp())).all().get().get(p0);
            // The newest timestamp is the COMMIT marker's (the broker's clock), at offset 25.
            expect(maxTs.offset() == 25 && maxTs.timestamp() > T0 + 104, "max timestamp " + maxTs);
            var byTs = admin.listOffsets(Map.of(p0, OffsetSpec.forTimestamp(T0 + 7))).all().get().get(p0);
            expect(byTs.offset() == 4 && byTs.timestamp() == T0 + 8, "for timestamp " + byTs);

            // A classic group of two read_committed consumers: the first takes both partitions,
            // the second's join rebalances them one each; both read everything committed and
            // commitSync their positions.
            String group = "ja-group";
            var props = Map.of("group.id", group, "group.protocol", "classic", "isolation.level", "read_committed",
                    "max.poll.records", "7");
            Map<String, String> seen = new TreeMap<>();
            try (var a = consumer(bootstrap, new HashMap<>(props) {{ put("client.id", "ja-1"); }});
                 var b = consumer(bootstrap, new HashMap<>(props) {{ put("client.id", "ja-2"); }})) {
                a.subscribe(List.of(topic));
                pollUntilAssigned(a);
                expect(a.assignment().size() == 2, "the first member holds both partitions");
                for (var r : a.poll(Duration.ofMillis(500))) seen.put(r.partition() + ":" + r.offset(), new String(r.value()));
                b.subscribe(List.of(topic));
                long deadline = System.currentTimeMillis() + 90_000;
                while (System.currentTimeMillis() < deadline
                        && !(a.assignment().size() == 1 && b.assignment().size() == 1 && seen.size() == 45)) {
                    for (var c : List.of(a, b))
                        for (var r : c.poll(Duration.ofMillis(100))) seen.put(r.partition() + ":" + r.offset(), new String(r.value()));
                }
                expect(a.assignment().size() == 1 && b.assignment().size() == 1, "after the rebalance: "
                        + a.assignment() + " / " + b.assignment());
                expect(seen.size() == 45, "read_committed reads the 45 committed records, not " + seen.size());
                expect(seen.values().stream().noneMatch(v -> v.startsWith("aborted")), "an aborted record was read");
                // Positions step over the markers to the log end once the consumer has read past
                // its last record (the marker is skipped when the batch after it is drained).
                deadline = System.currentTimeMillis() + 30_000;
                while (System.currentTimeMillis() < deadline && (a.position(a.assignment().iterator().next())
                        != latest.get(a.assignment().iterator().next()) || b.position(b.assignment().iterator().next())
                        != latest.get(b.assignment().iterator().next()))) {
                    // (a member may still be rereading what the other read before the rebalance)
                    for (var c : List.of(a, b))
                        for (var r : c.poll(Duration.ofMillis(100))) seen.put(r.partition() + ":" + r.offset(), new String(r.value()));
                }
                for (var c : List.of(a, b)) {
                    for (var tp : c.assignment()) expect(c.position(tp) == latest.get(tp), "position of " + tp + ": " + c.position(tp));
                    c.commitSync();
                }
                var described = admin.describeConsumerGroups(List.of(group),
                        new DescribeConsumerGroupsOptions().includeAuthorizedOperations(true)).all().get().get(group);
                expect(described.groupState() == GroupState.STABLE, "state " + described.groupState());
                expect(described.members().size() == 2, "two members");
                expect(described.partitionAssignor().equals("range"), "assignor " + described.partitionAssignor());
                expect(described.type() == GroupType.CLASSIC, "type " + described.type());
                Set<TopicPartition> assigned = new HashSet<>();
                for (var m : described.members()) assigned.addAll(m.assignment().topicPartitions());
                expect(assigned.equals(Set.of(p0, p1)), "assignment " + assigned);
                expect(described.authorizedOperations().containsAll(Set.of(AclOperation.READ,
                        AclOperation.DESCRIBE, AclOperation.DELETE)), "group operations " + described.authorizedOperations());
            }
            var listed = admin.listConsumerGroups().all().get();
            expect(listed.stream().anyMatch(g -> g.groupId().equals(group)), "listConsumerGroups " + listed);
            var offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            expect(offsets.get(p0).offset() == 26 && offsets.get(p1).offset() == 24, "committed " + offsets);
            var empty = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            expect(empty.groupState() == GroupState.EMPTY && empty.members().isEmpty(), "empty after close " + empty);
            admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(3, "rewound"))).all().get();
            offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            expect(offsets.get(p0).offset() == 3 && offsets.get(p0).metadata().equals("rewound")
                    && offsets.get(p1).offset() == 24, "after alterConsumerGroupOffsets " + offsets);

            var res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            var config = admin.describeConfigs(List.of(res)).all().get().get(res);
            expect(config.get("retention.ms").value().equals("86400000")
                    && config.get("retention.ms").source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, "retention.ms");
            expect(config.get("cleanup.policy").value().equals("delete")
                    && config.get("cleanup.policy").source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG, "cleanup.policy");
            var broker = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(nodes.iterator().next().id()));
            expect(admin.describeConfigs(List.of(broker)).all().get().get(broker).get("num.partitions") != null, "broker configs");

            admin.deleteTopics(List.of(topic)).all().get();
            expect(!admin.listTopics().names().get().contains(topic), "deleted");
            try {
                admin.deleteTopics(List.of(topic)).all().get();
                expect(false, "deleting a deleted topic succeeded");
            } catch (ExecutionException e) {
                expect(e.getCause() instanceof UnknownTopicOrPartitionException, "second delete: " + e.getCause());
            }
            System.out.println("{\"ok\":true,\"records\":" + seen.size() + "}");
        }
    }

    /** Offsets for N generated group ids (ASCII, non-ASCII, long, and the id whose hashCode is
     *  Integer.MIN_VALUE), committed through the admin client: each lands in the
     *  __consumer_offsets partition the broker computes. */
    static void manyGroups(String bootstrap, int n) throws Exception {
        List<String> ids = new ArrayList<>(List.of("polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES",
                "gr\u00fcppe", "\u7ec4-\u4e00", "\ud83d\ude00-emoji", "g".repeat(249), "a b c", "UPPER.lower_1-2"));
        for (int i = 0; ids.size() < n; i++) ids.add("oracle-group-" + i);
        try (Admin admin = Admin.create(common(bootstrap))) {
            List<KafkaFuture<Void>> futures = new ArrayList<>();
            for (int i = 0; i < ids.size(); i++) {
                futures.add(admin.alterConsumerGroupOffsets(ids.get(i),
                        Map.of(new TopicPartition("group-src", i % 4), new OffsetAndMetadata(i % 100))).all());
            }
            for (var f : futures) f.get(60, TimeUnit.SECONDS);
        }
        try (PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8)) {
            for (String id : ids) out.println(id);
        }
    }

    /** Writes without pause for `seconds` (or until the broker dies under it; topics replicated
     *  `replicationFactor` times): an idempotent
     *  producer into `crash` (2 partitions, rolling 16 KiB segments) and a transactional one into
     *  `crash-txn`, committing every 20 records and aborting every fifth transaction. Prints
     *  "flooding" once the topics exist and the first writes are acknowledged. */
    static void flood(String bootstrap, int seconds, Path ackFile) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap))) {
            createTopic(admin, "crash", 2, Map.of());
            createTopic(admin, "crash-txn", 1, Map.of());
            // Replicated, broker 1 leads both acked partitions: its log holds every acknowledged
            // record, and its high watermark is the leader's.
            if (ackFile != null && replicationFactor > 1) createAssigned(admin, "acked", List.of(List.of(1, 2, 3), List.of(1, 3, 2)));
            else if (ackFile != null) createTopic(admin, "acked", 2, Map.of());
        }
        long end = System.currentTimeMillis() + seconds * 1000L;
        if (ackFile != null) {
            // acks=all: every offset the broker acknowledged, "partition offset" a line, written
            // and flushed by the send's callback, before the next send (the truth the
            // acknowledged-loss bounds are held to after a SIGKILL).
            var out = new java.io.PrintStream(new java.io.FileOutputStream(ackFile.toFile()), false, StandardCharsets.UTF_8);
            Thread acked = new Thread(() -> {
                // Timeouts long enough never to give up on a record the broker committed: one
                // the client gave up on is still below the high watermark, committed but never
                // recorded here (the workload dies with the brokers anyway).
                try (var p = producer(bootstrap, Map.of("linger.ms", "2", "batch.size", "2048", "acks", "all",
                        "delivery.timeout.ms", "600000", "request.timeout.ms", "300000"))) {
                    for (long i = 0; System.currentTimeMillis() < end; i++) {
                        p.send(new ProducerRecord<>("acked", (int) (i % 2), utf8("a" + i), utf8("acked-" + i + "-" + "y".repeat((int) (i % 100)))),
                                (md, e) -> {
                                    if (e == null) {
                                        synchronized (out) {
                                            out.println(md.partition() + " " + md.offset());
                                            out.flush();
                                        }
                                    }
                                });
                        if (i % 50 == 49) Thread.sleep(1);
                    }
                } catch (Exception e) {
                    System.err.println("acks=all producer stopped: " + e);
                }
            });
            acked.setDaemon(true);
            acked.start();
        }
        // On a loaded machine initTransactions alone can outlast a short flood: the flood goes
        // on until the transactional producer has ended MIN_TXN_ROUNDS transactions (one
        // aborted), so crash-txn always holds transactional data and a producer snapshot.
        final int MIN_TXN_ROUNDS = 5;
        var txnRounds = new java.util.concurrent.atomic.AtomicInteger();
        Thread txn = new Thread(() -> {
            try (var p = txnProducer(bootstrap, "crash-txn-producer")) {
                for (int round = 0; System.currentTimeMillis() < end || round < MIN_TXN_ROUNDS; round++) {
                    p.beginTransaction();
                    for (int i = 0; i < 20; i++) p.send(new ProducerRecord<>("crash-txn", 0, utf8("t" + round), utf8("txn-" + round + "-" + i)));
                    if (round % 5 == 4) p.abortTransaction(); else p.commitTransaction();
                    txnRounds.incrementAndGet();
                }
            } catch (Exception e) {
                System.err.println("transactional producer stopped: " + e);
            }
        });
        txn.setDaemon(true);
        txn.start();
        try (var p = producer(bootstrap, Map.of("linger.ms", "5", "batch.size", "4096", "acks", "1",
                "delivery.timeout.ms", "5000", "request.timeout.ms", "2000"))) {
            p.send(new ProducerRecord<>("crash", 0, utf8("first"), utf8("first"))).get();
            System.out.println("flooding");
            System.out.flush();
            for (long i = 0; System.currentTimeMillis() < end || (txnRounds.get() < MIN_TXN_ROUNDS && txn.isAlive()); i++) {
                p.send(new ProducerRecord<>("crash", (int) (i % 2), utf8("k" + (i % 100)), utf8("value-" + i + "-" + "z".repeat((int) (i % 200)))));
            }
        } catch (Exception e) {
            System.err.println("producer stopped: " + e);
        }
        txn.join(120_000);
        if (txnRounds.get() < MIN_TXN_ROUNDS) throw new IllegalStateException("the transactional producer ended only " + txnRounds.get() + " transactions");
    }

    /** Topic stale-txn (1 partition, index.interval.bytes=256): three transactions of 20
     *  records, the second aborted, each flushed before it ends so that the aborted one has data
     *  in the log. */
    static void abortedTxn(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap))) {
            createTopic(admin, "stale-txn", 1, Map.of("index.interval.bytes", "256"));
        }
        try (var p = txnProducer(bootstrap, "stale-txn-producer")) {
            for (int round = 0; round < 3; round++) {
                p.beginTransaction();
                for (int i = 0; i < 20; i++) p.send(new ProducerRecord<>("stale-txn", 0, utf8("s" + round), utf8("stale-" + round + "-" + i)));
                p.flush();
                if (round == 1) p.abortTransaction(); else p.commitTransaction();
            }
        }
    }

    /** The rescue tests' source: topic rs, 3 partitions rolling 16 KiB segments. Each codec writes
     *  interleaved batches to every partition (idempotent); transactions committed and aborted
     *  between them; and one transaction left open on each partition at the end (never committed:
     *  a rescue must not send it). */
    static void rescueSource(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap))) {
            // Topic configs of its own, which rescue --create-topics carries to the target.
            createTopic(admin, "rs", 3, Map.of("retention.ms", "-1", "max.message.bytes", "2000000"));
        }
        int i = 0;
        for (int round = 0; round < 2; round++) {
            for (String codec : CODECS) {
                try (var producer = producer(bootstrap, Map.of("compression.type", codec))) {
                    batches(producer, "rs", 3, i, 120, 15, T0);
                    i += 120;
                }
                try (var t = txnProducer(bootstrap, "rs-txn-" + codec)) {
                    for (int n = 0; n < 3; n++) {
                        t.beginTransaction();
                        for (int k = 0; k < 12; k++) t.send(dataRecord("rs", k % 3, i++, T0 + 7_000_000L));
                        // Flushed first: abortTransaction drops records not yet sent, and these must reach the log.
                        t.flush();
                        if (n == 1) t.abortTransaction(); else t.commitTransaction();
                    }
                }
            }
        }
        var open = txnProducer(bootstrap, "rs-open");
        open.beginTransaction();
        for (int p = 0; p < 3; p++) open.send(new ProducerRecord<>("rs", p, T0 + 9_000_000L, utf8("open"), utf8("never committed"))).get();
        open.flush();
        // Two groups' offsets, committed from outside the group (as kafka-consumer-groups.sh
        // --reset-offsets does), for rescue --groups. Each partition holds, per codec and round
        // (135 offsets from 135k): 120 records, a committed transaction's 4 and its marker, an
        // aborted one's 4 and its marker, a committed one's 4 and its marker; then the open
        // transaction's record at 1350 (log end 1351).
        try (var c = consumer(bootstrap, Map.of("group.id", "rs-group-a"))) {
            c.commitSync(Map.of(
                new TopicPartition("rs", 0), new OffsetAndMetadata(126, "inside an aborted transaction"),
                new TopicPartition("rs", 1), new OffsetAndMetadata(300),
                new TopicPartition("rs", 2), new OffsetAndMetadata(1351)));
        }
        try (var c = consumer(bootstrap, Map.of("group.id", "rs-group-b"))) {
            c.commitSync(Map.of(
                new TopicPartition("rs", 0), new OffsetAndMetadata(124),
                new TopicPartition("rs", 1), new OffsetAndMetadata(1350)));
        }
    }

    /** The rescue benchmark's baseline: the Java producer (idempotent, acks=all, linger 5 ms, 1 MiB
     *  batches, no compression: kseg rescue's defaults) sending N records of the data workload to
     *  3 partitions. Prints "records N ms T". */
    static void benchProduce(String bootstrap, String topic, int n) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap))) {
            // The broker's default segment size (createTopic's 16 KiB would refuse 1 MiB batches).
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
        }
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) records.add(dataRecord(topic, i % 3, i, T0));
        try (var p = producer(bootstrap, Map.of("linger.ms", "5", "batch.size", "1048576", "buffer.memory", "268435456"))) {
            long start = System.nanoTime();
            List<Future<RecordMetadata>> pending = new ArrayList<>(n);
            for (var r : records) pending.add(p.send(r));
            p.flush();
            for (var f : pending) f.get();
            long ms = (System.nanoTime() - start) / 1_000_000;
            System.out.println("records " + n + " ms " + ms);
        }
    }

    /** Every record of TOPIC a read_committed consumer is given, by partition in offset order, up
     *  to each partition's last stable offset: NDJSON with base64 keys, values and header values. */
    static void consume(String bootstrap, String topic, Path outPath) throws Exception {
        try (var c = consumer(bootstrap, Map.of("isolation.level", "read_committed"));
             PrintStream out = new PrintStream(Files.newOutputStream(outPath), false, StandardCharsets.UTF_8)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (var info : c.partitionsFor(topic)) tps.add(new TopicPartition(topic, info.partition()));
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            var b64 = Base64.getEncoder();
            long deadline = System.currentTimeMillis() + 120_000;
            while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                if (System.currentTimeMillis() > deadline) throw new IllegalStateException("consume timed out");
                for (var r : c.poll(Duration.ofMillis(500))) {
                    StringBuilder h = new StringBuilder("[");
                    for (var header : r.headers()) {
                        if (h.length() > 1) h.append(',');
                        h.append('[').append(json(header.key())).append(',')
                         .append(header.value() == null ? "null" : "\"" + b64.encodeToString(header.value()) + "\"").append(']');
                    }
                    h.append(']');
                    out.println("{\"partition\":" + r.partition() + ",\"offset\":" + r.offset()
                        + ",\"timestamp\":" + r.timestamp() + ",\"timestampType\":" + json(r.timestampType().toString())
                        + ",\"key\":" + (r.key() == null ? "null" : "\"" + b64.encodeToString(r.key()) + "\"")
                        + ",\"value\":" + (r.value() == null ? "null" : "\"" + b64.encodeToString(r.value()) + "\"")
                        + ",\"headers\":" + h + "}");
                }
            }
        }
    }

    // ---- the broker's answers -------------------------------------------------------------------

    /** The replicated topic of `kseg diff`'s cluster test. Every record's value names it
     *  (`ACKS-i`); each acknowledged one is written to OUT as {"i","acks","offset"}. */
    static void replicas(String bootstrap, String[] a) throws Exception {
        String topic = a[1];
        TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = Admin.create(common(bootstrap))) {
            switch (a[0]) {
                case "create" -> admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(1, 2, 3)))
                        .configs(Map.of("unclean.leader.election.enable", "true", "min.insync.replicas", "1"))))
                        .all().get();
                case "produce" -> {
                    String acks = a[2];
                    int from = Integer.parseInt(a[3]), count = Integer.parseInt(a[4]), perBatch = Integer.parseInt(a[5]);
                    var extra = Map.of("acks", acks, "enable.idempotence", acks.equals("all") ? "true" : "false");
                    try (var producer = producer(bootstrap, extra);
                         PrintStream out = new PrintStream(Files.newOutputStream(Path.of(a[6]),
                                 java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND), true, StandardCharsets.UTF_8)) {
                        List<Future<RecordMetadata>> pending = new ArrayList<>();
                        for (int i = from; i < from + count; i++) {
                            pending.add(producer.send(new ProducerRecord<>(topic, 0, T0 + i * 10L, utf8("k" + i), utf8(acks + "-" + i))));
                            if ((i - from + 1) % perBatch == 0 || i == from + count - 1) {
                                producer.flush();
                                for (int j = 0; j < pending.size(); j++) {
                                    long offset = pending.get(j).get(60, TimeUnit.SECONDS).offset();
                                    int n = i - pending.size() + 1 + j;
                                    out.println("{\"i\":" + n + ",\"acks\":\"" + acks + "\",\"offset\":" + offset + "}");
                                }
                                pending.clear();
                            }
                        }
                    }
                }
                case "wait" -> {
                    int leader = Integer.parseInt(a[2]), isr = Integer.parseInt(a[3]);
                    long deadline = System.currentTimeMillis() + 120_000;
                    String last = "";
                    while (System.currentTimeMillis() < deadline) {
                        try {
                            var p = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0);
                            last = "leader " + (p.leader() == null ? "none" : p.leader().id()) + " isr " + p.isr();
                            if (p.leader() != null && p.leader().id() == leader && p.isr().size() == isr) return;
                        } catch (ExecutionException e) {
                            last = e.getCause().toString();
                        }
                        Thread.sleep(200);
                    }
                    throw new IllegalStateException(topic + "-0: no leader " + leader + " with " + isr + " in sync within 120 s (" + last + ")");
                }
                case "elect" -> {
                    var result = admin.electLeaders(ElectionType.UNCLEAN, Set.of(tp)).partitions().get();
                    var error = result.get(tp);
                    if (error != null && error.isPresent()
                            && !(error.get() instanceof org.apache.kafka.common.errors.ElectionNotNeededException)) {
                        throw new IllegalStateException("unclean election of " + tp + ": " + error.get());
                    }
                }
                default -> throw new IllegalArgumentException("unknown replicas action " + a[0]);
            }
        }
    }

    static PrintStream appending(Path path) throws Exception {
        return new PrintStream(Files.newOutputStream(path, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND), true, StandardCharsets.UTF_8);
    }

    /** Polls for `ms` (the member stays in its group meanwhile). */
    static void stay(KafkaConsumer<byte[], byte[]> c, long ms) {
        long until = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < until) c.poll(Duration.ofMillis(100));
    }

    /** Offsets for the expiry test: each group commits, then its member stays 8 s before it leaves,
     *  so that "Empty since" and "committed at" differ by more than the broker's check interval. */
    static void expiry(String bootstrap, Path outPath) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap)); PrintStream out = appending(outPath)) {
            createTopic(admin, "expiry-src", 1, Map.of());
            TopicPartition tp = new TopicPartition("expiry-src", 0);
            for (String protocol : new String[] {"classic", "consumer"}) {
                String group = "expiry-" + protocol;
                try (var c = consumer(bootstrap, Map.of("group.id", group, "group.protocol", protocol))) {
                    c.subscribe(List.of("expiry-src"));
                    pollUntilAssigned(c);
                    c.commitSync(Map.of(tp, new OffsetAndMetadata(3)));
                    out.println("{\"group\":\"" + group + "\",\"event\":\"committed\",\"at\":" + System.currentTimeMillis() + "}");
                    stay(c, 8_000);
                }
                out.println("{\"group\":\"" + group + "\",\"event\":\"left\",\"at\":" + System.currentTimeMillis() + "}");
            }
            // A standalone consumer: assign(), no group membership.
            try (var c = consumer(bootstrap, Map.of("group.id", "expiry-standalone"))) {
                c.assign(List.of(tp));
                c.commitSync(Map.of(tp, new OffsetAndMetadata(5)));
                out.println("{\"group\":\"expiry-standalone\",\"event\":\"committed\",\"at\":" + System.currentTimeMillis() + "}");
            }
        }
    }

    /** A classic group that rebalances 2 * ROUNDS + 1 times: a steady member, and in each round a second
     *  member that joins (a rebalance) and leaves (another). Every onPartitionsAssigned of every client is
     *  written to OUT: {"client", "memberId", "generation", "partitions"}. */
    static void rebalance(String bootstrap, String group, int rounds, Path outPath) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap)); PrintStream out = appending(outPath)) {
            createTopic(admin, "rebalance-src", 4, Map.of());
            var props = Map.of("group.id", group, "group.protocol", "classic", "client.id", "steady",
                    "partition.assignment.strategy", RangeAssignor.class.getName());
            try (var steady = consumer(bootstrap, props)) {
                int[] seen = {-1};
                steady.subscribe(List.of("rebalance-src"), listener(steady, "steady", out, seen));
                while (seen[0] < 0) steady.poll(Duration.ofMillis(100));
                for (int round = 0; round < rounds; round++) {
                    String client = "joiner-" + round;
                    int[] joined = {-1};
                    ExecutorService pool = Executors.newSingleThreadExecutor();
                    Future<?> other = pool.submit(() -> {
                        try (var c = consumer(bootstrap, Map.of("group.id", group, "group.protocol", "classic",
                                "client.id", client, "partition.assignment.strategy", RangeAssignor.class.getName()))) {
                            c.subscribe(List.of("rebalance-src"), listener(c, client, out, joined));
                            long deadline = System.currentTimeMillis() + 60_000;
                            while (joined[0] < 0 && System.currentTimeMillis() < deadline) c.poll(Duration.ofMillis(100));
                            if (joined[0] < 0) throw new IllegalStateException(client + " not assigned in 60 s");
                        }
                        return null;
                    });
                    while (!other.isDone()) steady.poll(Duration.ofMillis(100));
                    other.get();
                    pool.shutdown();
                    // The steady member's own rebalance after the joiner left.
                    long deadline = System.currentTimeMillis() + 60_000;
                    while (seen[0] <= joined[0] && System.currentTimeMillis() < deadline) steady.poll(Duration.ofMillis(100));
                    if (seen[0] <= joined[0]) throw new IllegalStateException("no rebalance after " + client + " left");
                }
            }
        }
    }

    static ConsumerRebalanceListener listener(KafkaConsumer<byte[], byte[]> c, String client, PrintStream out, int[] generation) {
        return new ConsumerRebalanceListener() {
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                var meta = c.groupMetadata();
                generation[0] = meta.generationId();
                List<String> parts = new ArrayList<>();
                for (var tp : partitions) parts.add("\"" + tp + "\"");
                synchronized (out) {
                    out.println("{\"client\":\"" + client + "\",\"memberId\":\"" + meta.memberId() + "\",\"generation\":"
                            + meta.generationId() + ",\"partitions\":[" + String.join(",", parts) + "]}");
                }
            }
        };
    }

    static String json(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"').toString();
    }

    static void query(String bootstrap, Path outPath) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap));
             PrintStream out = new PrintStream(Files.newOutputStream(outPath), false, StandardCharsets.UTF_8)) {
            Set<String> topics = admin.listTopics().names().get();
            var descriptions = admin.describeTopics(topics).allTopicNames().get();
            List<TopicPartition> partitions = new ArrayList<>();
            for (var d : descriptions.values()) {
                for (var p : d.partitions()) partitions.add(new TopicPartition(d.name(), p.partition()));
            }
            partitions.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
            for (TopicPartition tp : partitions) listOffsets(admin, bootstrap, tp, out);
            groupAnswers(admin, out);
            transactionAnswers(admin, out);
        }
    }

    static void answer(PrintStream out, TopicPartition tp, String spec, String isolation, ListOffsetsResult.ListOffsetsResultInfo info) {
        out.println("{\"type\":\"listOffsets\",\"topic\":" + json(tp.topic()) + ",\"partition\":" + tp.partition()
                + ",\"spec\":" + json(spec) + ",\"isolation\":" + json(isolation) + ",\"offset\":" + info.offset()
                + ",\"timestamp\":" + info.timestamp() + ",\"leaderEpoch\":" + info.leaderEpoch().map(String::valueOf).orElse("null") + "}");
    }

    /** earliest, latest and max timestamp under both isolation levels, and forTimestamp for targets
     *  drawn from the partition's own timestamps (each one, one below and one above, before the
     *  first and after the last), read with a read_uncommitted consumer. */
    static void listOffsets(Admin admin, String bootstrap, TopicPartition tp, PrintStream out) throws Exception {
        for (IsolationLevel iso : IsolationLevel.values()) {
            var opts = new ListOffsetsOptions(iso);
            Map<String, OffsetSpec> specs = new LinkedHashMap<>();
            specs.put("earliest", OffsetSpec.earliest());
            specs.put("latest", OffsetSpec.latest());
            specs.put("maxTimestamp", OffsetSpec.maxTimestamp());
            for (var e : specs.entrySet()) {
                try {
                    var info = admin.listOffsets(Map.of(tp, e.getValue()), opts).partitionResult(tp).get();
                    answer(out, tp, e.getKey(), iso.toString(), info);
                } catch (ExecutionException x) {
                    // OffsetSpec.maxTimestamp (KIP-734, ListOffsets v7) came with Kafka 3.0.
                    if (!(x.getCause() instanceof UnsupportedVersionException)) throw x;
                    unsupported(out, "listOffsets " + e.getKey(), x.getCause());
                }
            }
        }
        if (tp.topic().startsWith("__")) return;
        TreeSet<Long> stamps = new TreeSet<>();
        try (var c = consumer(bootstrap, Map.of("isolation.level", "read_uncommitted"))) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.currentTimeMillis() + 60_000;
            while (c.position(tp) < end && System.currentTimeMillis() < deadline) {
                for (var r : c.poll(Duration.ofMillis(200))) stamps.add(r.timestamp());
            }
        }
        TreeSet<Long> targets = new TreeSet<>();
        if (!stamps.isEmpty()) {
            targets.add(0L);
            targets.add(stamps.first() - 1_000);
            targets.add(stamps.last() + 1);
            targets.add(stamps.last() + 86_400_000L);
        }
        List<Long> all = new ArrayList<>(stamps);
        int step = Math.max(1, all.size() / 120);
        for (int i = 0; i < all.size(); i += step) {
            long t = all.get(i);
            targets.add(t - 1);
            targets.add(t);
            targets.add(t + 1);
        }
        if (!all.isEmpty()) targets.add(all.get(all.size() - 1));
        Map<TopicPartition, OffsetSpec> one = new HashMap<>();
        List<Long> ordered = new ArrayList<>(targets);
        // One request per target: several specs for one partition in a map would collide.
        List<KafkaFuture<ListOffsetsResult.ListOffsetsResultInfo>> futures = new ArrayList<>();
        for (long t : ordered) futures.add(admin.listOffsets(Map.of(tp, OffsetSpec.forTimestamp(t))).partitionResult(tp));
        for (int i = 0; i < ordered.size(); i++) answer(out, tp, "timestamp:" + ordered.get(i), "READ_UNCOMMITTED", futures.get(i).get());
    }

    @SuppressWarnings("deprecation")
    static void groupAnswers(Admin admin, PrintStream out) throws Exception {
        List<String> ids = new ArrayList<>();
        for (var g : admin.listConsumerGroups().all().get()) ids.add(g.groupId());
        Collections.sort(ids);
        var described = admin.describeConsumerGroups(ids).all().get();
        for (String id : ids) {
            var d = described.get(id);
            out.println("{\"type\":\"group\",\"group\":" + json(id) + ",\"state\":" + json(String.valueOf(d.groupState()))
                    + ",\"groupType\":" + json(String.valueOf(d.type())) + ",\"protocol\":" + json(d.partitionAssignor())
                    + ",\"members\":" + d.members().size() + "}");
            var offsets = admin.listConsumerGroupOffsets(id).partitionsToOffsetAndMetadata().get();
            List<TopicPartition> tps = new ArrayList<>(offsets.keySet());
            tps.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
            for (TopicPartition tp : tps) {
                var om = offsets.get(tp);
                if (om == null) continue;
                out.println("{\"type\":\"groupOffset\",\"group\":" + json(id) + ",\"topic\":" + json(tp.topic())
                        + ",\"partition\":" + tp.partition() + ",\"offset\":" + om.offset() + ",\"metadata\":" + json(om.metadata())
                        + ",\"leaderEpoch\":" + om.leaderEpoch().map(String::valueOf).orElse("null") + "}");
            }
        }
    }

    /** What the broker could not answer (an API older than it), for the tests to say so. */
    static void unsupported(PrintStream out, String what, Throwable why) {
        out.println("{\"type\":\"unsupported\",\"what\":" + json(what) + ",\"why\":" + json(String.valueOf(why)) + "}");
    }

    static void transactionAnswers(Admin admin, PrintStream out) throws Exception {
        List<String> ids = new ArrayList<>();
        try {
            for (var t : admin.listTransactions().all().get()) ids.add(t.transactionalId());
        } catch (ExecutionException x) {
            // ListTransactions and DescribeTransactions (KIP-664) came with Kafka 3.0.
            if (!(x.getCause() instanceof UnsupportedVersionException)) throw x;
            unsupported(out, "transactions", x.getCause());
            return;
        }
        Collections.sort(ids);
        var described = admin.describeTransactions(ids).all().get();
        for (String id : ids) {
            var d = described.get(id);
            List<String> parts = new ArrayList<>();
            for (var tp : d.topicPartitions()) parts.add(json(tp.topic() + "-" + tp.partition()));
            Collections.sort(parts);
            out.println("{\"type\":\"transaction\",\"transactionalId\":" + json(id) + ",\"state\":" + json(d.state().toString())
                    + ",\"producerId\":" + d.producerId() + ",\"producerEpoch\":" + d.producerEpoch()
                    + ",\"timeoutMs\":" + d.transactionTimeoutMs() + ",\"partitions\":[" + String.join(",", parts) + "]}");
        }
    }

    static final long HOUR_MS = 3_600_000L;
    static final long DAY_MS = 24 * HOUR_MS;

    /** Sends each record as a batch of its own (one time-index entry each) and returns the
     *  offset of the last one. */
    static long sendEach(KafkaProducer<byte[], byte[]> p, String topic, int from, int count, long ts) throws Exception {
        long last = -1;
        for (int i = from; i < from + count; i++) {
            byte[] value = utf8("r" + i + "-" + "x".repeat(600));
            var f = p.send(new ProducerRecord<>(topic, 0, ts, utf8("k" + (i % 10)), value));
            p.flush();
            last = f.get().offset();
        }
        return last;
    }

    /** The topics of the retention oracle (tests/oracle/retention.rs), stamped against the wall
     *  clock: 10 days old, an hour old, and one record five years ahead. */
    static void retention(String bootstrap, Path out) throws Exception {
        long now = System.currentTimeMillis();
        long old = now - 10 * DAY_MS, recent = now - HOUR_MS, future = now + 5 * 365 * DAY_MS;
        String week = Long.toString(7 * DAY_MS);
        try (Admin admin = Admin.create(common(bootstrap))) {
            // Topics without their own retention.ms take this cluster-wide default: 2 days.
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.BROKER, ""),
                    List.of(new AlterConfigOp(new ConfigEntry("log.retention.ms", Long.toString(2 * DAY_MS)),
                            AlterConfigOp.OpType.SET)))).all().get();
            createTopic(admin, "rt-future", 1, Map.of("retention.ms", week,
                    "message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE)));
            createTopic(admin, "rt-compact-delete", 1, Map.of("cleanup.policy", "compact,delete", "retention.ms", week));
            createTopic(admin, "rt-compact", 1, Map.of("cleanup.policy", "compact", "retention.ms", week));
            createTopic(admin, "rt-restored", 1, Map.of("retention.ms", week));
            createTopic(admin, "rt-active", 1, Map.of("retention.ms", week));
            createTopic(admin, "rt-size", 1, Map.of("retention.ms", "-1", "retention.bytes", "40000"));
            createTopic(admin, "rt-start", 1, Map.of("retention.ms", week));
            createTopic(admin, "rt-cluster-default", 1, Map.of());
        }
        long futureOffset;
        try (KafkaProducer<byte[], byte[]> p = producer(bootstrap, Map.of())) {
            sendEach(p, "rt-future", 0, 60, old);
            futureOffset = sendEach(p, "rt-future", 60, 1, future);
            sendEach(p, "rt-future", 61, 60, old);
            sendEach(p, "rt-future", 121, 5, recent);
            for (String t : List.of("rt-compact-delete", "rt-compact")) {
                sendEach(p, t, 0, 80, old);
                sendEach(p, t, 80, 3, recent);
            }
            sendEach(p, "rt-restored", 0, 120, old);
            sendEach(p, "rt-restored", 120, 3, recent);
            sendEach(p, "rt-active", 0, 80, old);
            sendEach(p, "rt-size", 0, 120, recent);
            sendEach(p, "rt-start", 0, 100, recent);
            sendEach(p, "rt-cluster-default", 0, 60, now - 3 * DAY_MS);
            sendEach(p, "rt-cluster-default", 60, 3, recent);
        }
        try (Admin admin = Admin.create(common(bootstrap))) {
            admin.deleteRecords(Map.of(new TopicPartition("rt-start", 0), RecordsToDelete.beforeOffset(60))).all().get();
        }
        Files.writeString(out, "{\"now\":" + now + ",\"futureOffset\":" + futureOffset
                + ",\"futureTimestamp\":" + future + "}\n");
    }

    /** The high-watermark topic of tests/oracle/retention.rs on a two-broker cluster. */
    static void retentionHw(String bootstrap, String phase) throws Exception {
        long old = System.currentTimeMillis() - 10 * DAY_MS;
        if (phase.equals("create")) {
            try (Admin admin = Admin.create(common(bootstrap))) {
                createTopic(admin, Map.of("retention.ms", Long.toString(7 * DAY_MS)),
                        c -> new NewTopic("rt-hw", Map.of(0, List.of(1, 2))).configs(c));
            }
            try (KafkaProducer<byte[], byte[]> p = producer(bootstrap, Map.of())) {
                sendEach(p, "rt-hw", 0, 30, old);
            }
        } else {
            try (KafkaProducer<byte[], byte[]> p = producer(bootstrap,
                    Map.of("acks", "1", "enable.idempotence", "false"))) {
                sendEach(p, "rt-hw", 30, 60, old);
            }
        }
    }
    /** `count` records from `from` in batches of 20 (flushed): keys k0..k39, every 9th a
     *  tombstone, every 13th keyless. */
    static void keyed(KafkaProducer<byte[], byte[]> p, String topic, int from, int count, long ts) throws Exception {
        List<Future<RecordMetadata>> pending = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            byte[] key = i % 13 == 6 ? null : utf8("k" + (i % 40));
            // Bytes that do not compress, so that every codec's segments roll.
            byte[] value = null;
            if (i % 9 != 4) {
                value = new byte[120];
                new Random(i).nextBytes(value);
            }
            pending.add(p.send(new ProducerRecord<>(topic, 0, ts, key, value)));
            if ((i - from) % 20 == 19) flush(p, pending);
        }
        flush(p, pending);
    }

    /** The topics of the log cleaner oracle (tests/oracle/compact.rs), written with the cleaner
     *  off: per codec, an idempotent producer two days old (expired: its batches may all go), a
     *  transactional one (committed, aborted, committed) and a recent idempotent one (active: its
     *  last batch stays); a partition pinned by a transaction left open; one whose dirty ratio
     *  (1.0: never cleaned) is not above its min.cleanable.dirty.ratio of 1. */
    static void compact(String bootstrap) throws Exception {
        long now = System.currentTimeMillis(), old = now - 2 * DAY_MS, recent = now - HOUR_MS;
        try (Admin admin = Admin.create(common(bootstrap))) {
            // Written under delete (a compacted topic refuses keyless records), compacted after.
            for (String codec : CODECS) createTopic(admin, "cp-" + codec, 1, Map.of());
            createTopic(admin, "cp-hanging", 1, Map.of());
            createTopic(admin, "cp-lowratio", 1, Map.of("min.cleanable.dirty.ratio", "1"));
        }
        for (String codec : CODECS) {
            String topic = "cp-" + codec;
            try (var p = producer(bootstrap, Map.of("compression.type", codec))) {
                keyed(p, topic, 0, 400, old);
            }
            try (var t = producer(bootstrap, Map.of("compression.type", codec, "transactional.id", "cp-txn-" + codec,
                    "transaction.timeout.ms", "600000"))) {
                t.initTransactions();
                for (int n = 0; n < 3; n++) {
                    t.beginTransaction();
                    List<Future<RecordMetadata>> pending = new ArrayList<>();
                    for (int k = 0; k < 20; k++) {
                        pending.add(t.send(new ProducerRecord<>(topic, 0, recent, utf8("t" + (k % 7)), utf8("txn-" + n + "-" + k))));
                    }
                    flush(t, pending);
                    if (n == 1) t.abortTransaction(); else t.commitTransaction();
                }
            }
            try (var p = producer(bootstrap, Map.of("compression.type", codec))) {
                keyed(p, topic, 400, 300, recent);
            }
        }
        try (var p = producer(bootstrap, Map.of())) {
            keyed(p, "cp-hanging", 0, 200, old);
        }
        var open = producer(bootstrap, Map.of("transactional.id", "cp-hanging-open", "transaction.timeout.ms", "900000"));
        open.initTransactions();
        open.beginTransaction();
        for (int k = 0; k < 5; k++) open.send(new ProducerRecord<>("cp-hanging", 0, recent, utf8("k1"), utf8("open-" + k))).get();
        try (var p = producer(bootstrap, Map.of())) {
            keyed(p, "cp-hanging", 200, 300, old);
            keyed(p, "cp-lowratio", 0, 400, old);
        }
        try (Admin admin = Admin.create(common(bootstrap))) {
            Map<ConfigResource, Collection<AlterConfigOp>> compact = new HashMap<>();
            for (String t : List.of("cp-none", "cp-gzip", "cp-snappy", "cp-lz4", "cp-zstd", "cp-hanging", "cp-lowratio")) {
                compact.put(new ConfigResource(ConfigResource.Type.TOPIC, t), List.of(new AlterConfigOp(
                        new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET)));
            }
            admin.incrementalAlterConfigs(compact).all().get();
        }
        // The open transaction's producer is not closed: the JVM exits with it open.
    }
}
