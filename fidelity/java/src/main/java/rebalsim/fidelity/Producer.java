package rebalsim.fidelity;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The scenario's producers and the coordinator's view of the group, in one JVM.
 *
 * <p>Arguments: bootstrap servers, group id, then one topic per argument as
 * name:partitions:rate (records per second per partition). It creates the
 * topics, prints "ready", waits for "go" on standard input, then writes
 * every partition at its rate and, every 100 ms, describes the group and
 * logs the coordinator's state, group epoch and members (by client.id)
 * whenever they change. Standard input closing stops it.
 */
public final class Producer {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], group = args[1];
        List<String> topics = new ArrayList<>();
        List<Integer> partitions = new ArrayList<>();
        List<Double> rates = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            String[] f = args[i].split(":");
            topics.add(f[0]);
            partitions.add(Integer.parseInt(f[1]));
            rates.add(Double.parseDouble(f[2]));
        }
        Log log = new Log("");
        Properties ap = new Properties();
        ap.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(ap)) {
            List<NewTopic> nts = new ArrayList<>();
            for (int i = 0; i < topics.size(); i++) {
                nts.add(new NewTopic(topics.get(i), partitions.get(i), (short) 1));
            }
            admin.createTopics(nts).all().get();
            log.line("ready", "");

            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String cmd;
            while ((cmd = in.readLine()) != null && !cmd.equals("go")) {
                // wait for the runner's start signal
            }
            if (cmd == null) {
                return;
            }
            Thread stdinWatch = new Thread(() -> {
                try {
                    while (in.readLine() != null) {
                        // ignore
                    }
                } catch (Exception e) {
                    // treat as closed
                }
                System.exit(0);
            });
            stdinWatch.setDaemon(true);
            stdinWatch.start();

            // The coordinator's view is described on a thread of its own:
            // a describe takes tens of milliseconds, more on a loaded
            // machine, and in the writing loop it stalled production and
            // then wrote the arrears in a burst, where the simulator's
            // partitions grow at a steady rate.
            Thread observer = new Thread(() -> {
                String lastGroup = "";
                long next = System.nanoTime();
                try {
                    while (true) {
                        String g = describe(admin, group, log);
                        if (!g.equals(lastGroup)) {
                            log.line("group", g);
                            lastGroup = g;
                        }
                        next += 100_000_000L;
                        long sleep = next - System.nanoTime();
                        if (sleep > 0) {
                            Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                        } else {
                            next = System.nanoTime();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            observer.setDaemon(true);
            observer.start();

            Properties pp = new Properties();
            pp.put("bootstrap.servers", bootstrap);
            pp.put("key.serializer", ByteArraySerializer.class.getName());
            pp.put("value.serializer", ByteArraySerializer.class.getName());
            pp.put("linger.ms", "5");
            pp.put("acks", "1");
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {
                byte[] value = new byte[16];
                double[] owed = new double[topics.size()];
                long start = System.nanoTime();
                long tick = 10_000_000L; // 10 ms
                for (long n = 1; ; n++) {
                    for (int i = 0; i < topics.size(); i++) {
                        owed[i] += rates.get(i) * tick / 1e9;
                        int k = (int) owed[i];
                        owed[i] -= k;
                        for (int j = 0; j < k; j++) {
                            for (int p = 0; p < partitions.get(i); p++) {
                                producer.send(new ProducerRecord<>(topics.get(i), p, null, value));
                            }
                        }
                    }
                    long sleep = start + n * tick - System.nanoTime();
                    if (sleep > 0) {
                        Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                    }
                }
            }
        }
    }

    private static String describe(Admin admin, String group, Log log) {
        try {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            TreeSet<String> members = new TreeSet<>();
            for (MemberDescription m : d.members()) {
                members.add("\"" + m.clientId() + "\"");
            }
            // A sorted list, so that an unchanged group logs nothing.
            List<String> sorted = new ArrayList<>(members);
            StringBuilder all = new StringBuilder();
            for (MemberDescription m : d.members()) {
                all.append(m.clientId()).append(' ');
            }
            return "\"state\":\"" + d.groupState() + "\",\"epoch\":" + d.groupEpoch().orElse(-1)
                    + ",\"target\":" + d.targetAssignmentEpoch().orElse(-1)
                    + ",\"members\":[" + String.join(",", sorted) + "]";
        } catch (Exception e) {
            return "\"state\":\"unknown\",\"epoch\":-1,\"target\":-1,\"members\":[]";
        }
    }
}
