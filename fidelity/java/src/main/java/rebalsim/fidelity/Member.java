package rebalsim.fidelity;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One scenario member as a real KafkaConsumer in its own JVM.
 *
 * <p>Arguments: the consumer's configs as key=value, plus the runner's own
 * keys rebalsim.topics (comma-separated real topic names),
 * rebalsim.topic.prefix (stripped in the log) and rebalsim.processing.rate
 * (records per second, 0 = unlimited). The process starts its JVM, then
 * waits for a line "go" on standard input before it creates the consumer,
 * so that JVM start-up does not delay the member's start in the scenario:
 * the consumer is built before, and subscribes after.
 *
 * <p>It logs every listener callback on entry and on return, the group
 * generation (classic) or member epoch (consumer protocol) and the member
 * id whenever they change, and the offsets each poll batch processed. The
 * member id is the one the broker assigned (classic) or the client drew
 * (consumer protocol); the simulator is given it, so that it orders the
 * members as the real coordinator and assignors do. SIGTERM closes the
 * consumer (a graceful leave: revocation callbacks, commit, LeaveGroup);
 * SIGSTOP/SIGCONT and SIGKILL come from the runner for pauses and crashes.
 */
public final class Member {
    /** A thread this late for its next record was stopped, not slow. */
    private static final long STALL_NANOS = 50_000_000L;

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        String topicsArg = "";
        String prefix = "";
        double rate = 0;
        long[] callbackMs = new long[3]; // revoked, assigned, lost
        for (String a : args) {
            int eq = a.indexOf('=');
            String k = a.substring(0, eq), v = a.substring(eq + 1);
            switch (k) {
                case "rebalsim.topics" -> topicsArg = v;
                case "rebalsim.topic.prefix" -> prefix = v;
                case "rebalsim.processing.rate" -> rate = Double.parseDouble(v);
                case "rebalsim.revoke.ms" -> callbackMs[0] = Long.parseLong(v);
                case "rebalsim.assign.ms" -> callbackMs[1] = Long.parseLong(v);
                case "rebalsim.lost.ms" -> callbackMs[2] = Long.parseLong(v);
                default -> props.put(k, v);
            }
        }
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        Log log = new Log(prefix);

        // The consumer is built before the start signal: building it loads
        // most of the client's classes but contacts nobody; the group
        // hears of the member only from subscribe() and the first poll().
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        // Fetching the topic's metadata connects to the broker and loads
        // the network classes, outside the group and before time zero.
        consumer.partitionsFor(topicsArg.split(",")[0], Duration.ofSeconds(60));
        warmUp(props, topicsArg);
        log.line("waiting", "");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String cmd;
        while ((cmd = in.readLine()) != null && !cmd.equals("go")) {
            // wait for the runner's start signal
        }
        if (cmd == null) {
            consumer.close(Duration.ZERO);
            return; // the runner went away before starting this member
        }
        CountDownLatch closed = new CountDownLatch(1);
        Thread mainThread = Thread.currentThread();
        final boolean[] closing = {false};
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (closing) {
                closing[0] = true;
            }
            consumer.wakeup();
            try {
                closed.await();
                mainThread.join(35_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));

        ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> tps) {
                callback("revoked", tps, callbackMs[0]);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> tps) {
                callback("assigned", tps, callbackMs[1]);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> tps) {
                callback("lost", tps, callbackMs[2]);
            }

            // The application's time in the callback is the scenario's
            // revoke_callback, assign_callback or lost_callback.
            private void callback(String kind, Collection<TopicPartition> tps, long spendMs) {
                int gen = consumer.groupMetadata().generationId();
                String id = consumer.groupMetadata().memberId();
                log.line(kind, "\"phase\":\"enter\",\"gen\":" + gen + ",\"member_id\":\"" + id + "\",\"parts\":" + log.partitions(tps));
                if (spendMs > 0) {
                    try {
                        Thread.sleep(spendMs);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                log.line(kind, "\"phase\":\"return\",\"gen\":" + gen + ",\"parts\":" + log.partitions(tps));
            }
        };
        consumer.subscribe(List.of(topicsArg.split(",")), listener);
        log.line("started", "");

        long nanosPerRecord = rate > 0 ? (long) (1e9 / rate) : 0;
        int lastGen = -2;
        String lastID = null;
        try {
            while (true) {
                synchronized (closing) {
                    if (closing[0]) {
                        break;
                    }
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(50));
                int gen = consumer.groupMetadata().generationId();
                String id = consumer.groupMetadata().memberId();
                if (gen != lastGen || !id.equals(lastID)) {
                    log.line("gen", "\"gen\":" + gen + ",\"member_id\":\"" + id + "\"");
                    lastGen = gen;
                    lastID = id;
                }
                if (records.isEmpty()) {
                    continue;
                }
                // Process at the scenario's rate: each record costs
                // nanosPerRecord of the poll loop's time, as in the simulator.
                Map<TopicPartition, long[]> ranges = new HashMap<>();
                List<TopicPartition> order = new ArrayList<>();
                // The batch's clock runs from the poll() that returned it,
                // and each record is due nanosPerRecord after the one
                // before, not after the moment the last sleep ended: a
                // sleep that overshoots (the scheduler of a loaded machine
                // wakes a thread late) is made up by the next, so that n
                // records take n/rate, as in the simulator. Lateness of
                // more than STALL_NANOS is a stop (SIGSTOP, a long GC): the
                // simulator stops the batch's clock for it too, so it is
                // not made up.
                long busyUntil = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    if (nanosPerRecord > 0) {
                        busyUntil += nanosPerRecord;
                        long wait = busyUntil - System.nanoTime();
                        if (wait > 2_000_000) {
                            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                        } else if (-wait > STALL_NANOS) {
                            busyUntil = System.nanoTime();
                        }
                    }
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    long[] rg = ranges.get(tp);
                    if (rg == null) {
                        ranges.put(tp, new long[] {r.offset(), r.offset()});
                        order.add(tp);
                    } else if (r.offset() == rg[1] + 1 && rg[1] - rg[0] < 49) {
                        rg[1] = r.offset();
                    } else {
                        logRange(log, tp, rg);
                        rg[0] = r.offset();
                        rg[1] = r.offset();
                    }
                }
                for (TopicPartition tp : order) {
                    logRange(log, tp, ranges.get(tp));
                }
                // The batch ends when its last record is due: the next
                // poll() comes no earlier, as in the simulator.
                long rest = busyUntil - System.nanoTime();
                if (rest > 0) {
                    Thread.sleep(rest / 1_000_000, (int) (rest % 1_000_000));
                }
            }
        } catch (WakeupException e) {
            // SIGTERM: fall through to close
        } finally {
            log.line("closing", "");
            consumer.close();
            log.line("closed", "");
            closed.countDown();
        }
    }

    /**
     * Runs one rebalance of a consumer like this one in a group of its own,
     * before time zero. A fresh JVM loads and interprets the classes of a
     * rebalance (JoinGroup and SyncGroup handling, the assignor, the
     * listener's invoker) the first time it needs them, and that took a
     * restarted member tens of milliseconds per step at a loaded machine's
     * speed: long enough to lose a race the simulator, whose clients take
     * no time to think, cannot lose (its first SyncGroup came after the
     * others had revoked and rejoined, and failed). The simulated members
     * are warm; so the real ones are made warm too.
     */
    private static void warmUp(Properties props, String topics) {
        Properties w = new Properties();
        w.putAll(props);
        w.remove("group.instance.id");
        w.put("group.id", props.getProperty("group.id") + "-warmup-" + props.getProperty("client.id", "member"));
        w.put("client.id", props.getProperty("client.id", "member") + "-warmup");
        w.put("enable.auto.commit", "false");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(w)) {
            final boolean[] assigned = {false};
            c.subscribe(List.of(topics.split(",")), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> tps) {
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> tps) {
                    assigned[0] = true;
                }
            });
            long until = System.nanoTime() + 60_000_000_000L;
            while (!assigned[0] && System.nanoTime() < until) {
                c.poll(Duration.ofMillis(50));
            }
        }
    }

    private static void logRange(Log log, TopicPartition tp, long[] rg) {
        log.line("processed", "\"part\":\"" + log.topic(tp.topic()) + "-" + tp.partition() + "\",\"from\":" + rg[0] + ",\"to\":" + rg[1]);
    }
}
