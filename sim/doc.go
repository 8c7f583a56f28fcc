// Package sim is rebalsim's deterministic discrete-event simulator: it runs
// one scenario under one protocol on a virtual clock and measures the
// result with a protocol-neutral ownership ledger.
//
// A run has three parts, all inside this package. The kernel orders events
// by (virtual time, sequence number) and draws randomness from streams
// named by purpose and derived from the seed, so that two protocols run on
// one seed see the same disturbances and delays. The world holds the
// consumer processes (up or down, frozen by a GC pause, the application
// thread stalled, inputs queued for a blocked thread, callbacks taking
// their time) and the network between them and the group coordinator. The
// ledger is told only what a real client tells its application (partitions
// assigned, revoked, lost; the process paused, stalled, crashed) and who the
// coordinator counts as a member, and computes every metric of Result from
// that, the same way for every protocol.
//
// sim never imports a protocol model: the models implement Client and
// GroupCoordinator and reach Run through Models (package protocols builds
// them). Scenario files are package scenarios' business; what a file asks
// of `rebalsim check` or `rebalsim sweep` is not sim's.
//
// # Use
//
//	sc := &sim.Scenario{Name: "lab", Seed: 1, Duration: 2 * time.Minute,
//		Topics:  []sim.TopicSpec{{Name: "orders", Partitions: 12, Rate: 100}},
//		Group:   sim.DefaultGroupConfig(),
//		Members: []sim.MemberSpec{{ID: "c1"}, {ID: "c2"}, {ID: "c3"}, {ID: "c4", Start: 30 * time.Second}},
//	}
//	res, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: sim.ProtocolCooperative})
//	if err != nil { ... }
//	fmt.Println(res.Metrics.MovedPartitions, res.Metrics.DoubleOwnershipSeconds)
//
// Run treats the scenario as read-only, and the same scenario, seed and
// rebalsim version give byte-identical results and traces. Package
// scenarios builds a Scenario from a file and checks one built in Go
// (scenarios.Validate); package rebalsim runs one under several protocols
// on one seed.
//
// # The duties of a model, in order
//
// A Client (one consumer incarnation) and a GroupCoordinator (one group)
// are state machines in the manner of etcd's raft. For each input the
// simulator hands them (Start, Poll, Receive, Timer, CallbackDone, Close,
// Subscribe; Receive, Timer, MetadataChanged) a model:
//
//  1. Reads the time and the metadata from the env it is given, never a
//     clock, a goroutine or randomness of its own.
//  2. Changes its state and appends what should happen to the *Effects:
//     messages to Send, timers to set or cancel, and, for a client,
//     WantPoll when it needs its application thread's next poll(). A
//     timer is named by a kind the model declares once (NewTimerKind)
//     and, for a coordinator's timer of one member, by the handle the
//     coordinator keeps in its member record (MemberHandles).
//  3. Tells the ledger of ownership only through Callbacks: a revoke stops
//     processing at once and lets go of the partitions when it returns,
//     an assign takes them when it starts, a lost drops them without a
//     commit. A client continues in CallbackDone, once the application
//     thread has run the callback.
//  4. Notes the facts the metrics need: the coordinator NoteMemberAdded
//     and NoteMemberRemoved (the ledger judges double ownership among
//     current members only) and NoteRebalance; the client
//     NoteRebalanceStart and NoteRebalanceEnd (Kafka's rebalance-latency
//     metrics) and NoteJoinFailure.
//  5. Answers the queries truthfully after every step: Settled and
//     Rebalancing for the client, Stable for the coordinator, since
//     convergence is judged from them after every event.
//  6. Panics on an impossible transition, naming the states involved: that
//     is a bug in the model, not bad input.
//
// A model that lets a partition reach its new owner before the old one has
// let go of it (a client that skips a revocation, say) is reported as a
// double_ownership finding: the ledger, not the model, judges safety.
//
// # Measuring a real group
//
// Replay feeds the same ledger from outside the simulator, with what real
// consumers and their coordinator were seen to do, and returns a Result
// whose metrics mean what a simulated run's do; see its documentation.
package sim
