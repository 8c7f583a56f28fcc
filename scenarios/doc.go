// Package scenarios turns scenario files into validated File values (a
// sim.Scenario and the file's contracts with the tools: the `expect:` list
// that `rebalsim check` evaluates and the `sweep:` block that `rebalsim
// sweep` expands), and holds two embedded collections: the examples (Examples, Example),
// which show the keys in use, and the scenario library (Library,
// LibraryScenario), the situations Kafka users hit with expectations that
// encode each protocol's known behaviour, which `rebalsim check library`
// runs in CI.
//
// A scenario describes a consumer group (topics, members and their
// configs) and a timeline of disturbances. The smallest useful one:
//
//	name: scale-out
//	duration: 2m
//	topics:
//	  - {name: orders, partitions: 12}
//	members:
//	  - {count: 3, id: "c{i}"}        # c1, c2, c3
//	  - {id: c4, start: 30s}          # joins at 30s
//
// Everything else has a default: seed 1, every protocol model (eager,
// cooperative, nextgen), 100 records/s per partition, 1ms network latency,
// Kafka's client and broker configs (sim.ConsumerSettingTable and
// sim.GroupSettingTable list every key with its default). Keys mirror Kafka's config names in
// snake_case without units (session.timeout.ms is session_timeout), and
// durations are Go durations with a unit: 45s, 250ms, 5m. DESIGN.md
// ("Scenario files") describes every key; the examples (see Examples) show
// them in use.
//
// Using the package:
//
//  1. LoadFile or Parse a file; Example and LibraryScenario load an
//     embedded one. They accept the protocol and assignor names of the
//     built-in models; Loader{Models: m}.LoadFile accepts those m
//     registers, an assignor plugged in through protocols.Models among them.
//  2. On error, print it: each line names file:line:col, the key, what was
//     found and what is allowed, with a suggestion for a near-miss key,
//     member or topic. errors.As finds the *Error values for tooling.
//  3. Hand the File's *sim.Scenario to the simulator, which treats it as
//     read-only; its Expect and Sweep are for packages check and sweeps. Members expanded from one count: entry share the values
//     their settings point to.
//  4. A scenario built in Go rather than read from a file should pass
//     Validate (ValidateFile with expectations), which applies the same
//     rules and names fields by path.
//
// Decoding is strict: unknown keys, duplicate keys, a number where a
// duration belongs, references to undeclared members or topics, events at
// or past the horizon and the like are errors, never silently ignored,
// because a scenario that quietly means something else produces confident,
// wrong comparisons. The decoder never panics, whatever the input, and
// bounds what a small file can make it allocate: at most MaxMembers
// members, MaxPartitions partitions and MaxEventActions member actions in
// events, and a cap on values reached through YAML aliases.
package scenarios
