package rebalsim.fidelity;

import java.io.PrintStream;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.kafka.common.TopicPartition;

/**
 * One JSON object per line on standard output, stamped with the wall clock
 * in microseconds since the epoch. realrun reads these lines from every
 * process and turns them into the ledger's events.
 */
final class Log {
    private final PrintStream out = System.out;
    private final String prefix;

    /** prefix is stripped from topic names, so that lines name the scenario's topics. */
    Log(String prefix) {
        this.prefix = prefix;
    }

    static long micros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    String topic(String real) {
        return real.startsWith(prefix) ? real.substring(prefix.length()) : real;
    }

    String partitions(Collection<TopicPartition> tps) {
        List<String> names = tps.stream().map(tp -> "\"" + topic(tp.topic()) + "-" + tp.partition() + "\"")
                .sorted().collect(Collectors.toList());
        return "[" + String.join(",", names) + "]";
    }

    /** line writes {"t":..., "ev":ev, fields...}; fields is already JSON ("" for none). */
    synchronized void line(String ev, String fields) {
        StringBuilder b = new StringBuilder(64).append("{\"t\":").append(micros()).append(",\"ev\":\"").append(ev).append('"');
        if (!fields.isEmpty()) {
            b.append(',').append(fields);
        }
        out.println(b.append('}'));
        out.flush();
    }
}
