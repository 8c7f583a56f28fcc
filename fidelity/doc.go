// Package fidelity runs a scenario on a real Apache Kafka broker and real
// consumers, measures the run with the simulator's own ledger, and sets
// the result beside the simulator's on the same scenario.
//
// It is a module of its own, so that the main module needs neither Java
// nor cgo: `go test ./...` at the repository root never builds it.
//
// A run, in order:
//  1. CheckSubset rejects what cannot be run for real, naming file, line
//     and key; ApplyTimings lowers the timeouts for --timings short.
//  2. BuildJava resolves Kafka's artifacts with Maven and compiles the
//     consumer and producer programs (fidelity/java).
//  3. StartBroker formats a KRaft log directory with Kafka's StorageTool
//     and starts one combined broker and controller on 127.0.0.1, with
//     the group coordinator's settings taken from the scenario's group.
//  4. RunReal starts one OS process per member incarnation (a Java
//     KafkaConsumer, or a franz-go or librdkafka consumer: cmd/kgomember,
//     cmd/rdkmember, which share internal/member), applies the
//     scenario's disturbances as signals (SIGSTOP/SIGCONT for a pause,
//     SIGKILL for a crash, SIGTERM for a graceful close) and collects the
//     JSON lines every process writes.
//  5. Measure feeds those lines to sim.Replay, the simulator's ledger.
//  6. Compare lays the real runs' range beside the simulator's over as
//     many seeds, each at the trigger phase of its real repetition
//     (Phased), and flags where the simulator leaves the real range by
//     more than the metric's tolerance; Gate turns the flags of the gated
//     metrics into a verdict, sparing the KnownDisagreements.
package fidelity
