// Package nextgen models the KIP-848 consumer group protocol
// (group.protocol=consumer): the group coordinator that computes every
// member's target assignment and the consumer that converges to it one
// heartbeat at a time, plus the online migration between a classic group
// and a consumer group (reference §4, §5.2).
//
// # The protocol
//
// There is one RPC, ConsumerGroupHeartbeat. A member joins with epoch 0 and
// its subscription; the coordinator bumps the group epoch whenever
// membership, a subscription or a subscribed topic's partition count
// changes, and on the next heartbeat recomputes the target assignment with
// a server-side assignor (package assignor). Each member then moves towards
// its own target through package reconcile's state machine: it is first told
// to revoke what it must give up (its epoch does not move until its
// heartbeat stops listing those partitions), and only then gets what is
// new; a partition reaches its new owner only after the old owner's
// heartbeat released it. There is no group-wide barrier: members that keep
// their partitions never stop processing them.
//
// The coordinator fences a member whose session times out
// (group.consumer.session.timeout.ms) or that does not revoke within its
// rebalance timeout (max.poll.interval.ms); a fenced member's partitions are
// free at once. A static member (group.instance.id) that leaves with epoch
// -2 keeps its assignment and causes no epoch bump if it comes back within
// the session timeout.
//
// # The models
//
//   - Coordinator implements sim.GroupCoordinator for one group, as
//     GroupMetadataManager holds it: a classic group (served unchanged by
//     protocols/classic.Group) until the first ConsumerGroupHeartbeat turns
//     it into a consumer group, which also answers the JoinGroup, SyncGroup,
//     Heartbeat and LeaveGroup requests of members still on the classic
//     protocol; when the last consumer-protocol member leaves, it turns back
//     into a classic group.
//   - Client implements sim.Client: the new consumer's membership manager
//     (UNSUBSCRIBED, JOINING, RECONCILING, ACKNOWLEDGING, STABLE, FENCED,
//     PREPARE_LEAVING, LEAVING, STALE, FATAL) and heartbeat manager. It
//     heartbeats from the background thread; rebalance callbacks run on the
//     application thread, so a stalled application delays its revocations
//     exactly as the real consumer's does.
//
// # Use
//
// Package protocols wires them into the simulator:
//
//	coord := nextgen.NewCoordinator(groupConfig)          // sim.GroupCoordinator
//	client := nextgen.NewClient(endpoint, consumerConfig) // sim.Client
//
// The caller (the simulator) then, in order: delivers every request to
// Coordinator.Receive and every response to Client.Receive, on the client
// thread that sent the request (the coordinator answers the endpoint a
// request came from and names no thread); fires the timers they set, by
// their sim.TimerID; runs the callbacks a client asks for on its application
// thread and reports each with CallbackDone; calls Client.Poll when asked
// (Effects.WantPoll); calls Coordinator.MetadataChanged when partitions are
// added. Both models are pure state machines: no clock, no goroutine, no
// randomness; every output is ordered (members in join order, partitions
// sorted), never by map iteration.
//
// # Notes for the ledger
//
// The coordinator reports NoteMemberAdded when a member id enters the group
// and NoteMemberRemoved when it leaves, is fenced or is replaced; member ids
// carried across a conversion between group types are neither. A static
// member that leaves with epoch -2 is reported removed at once — it said it
// left, and whatever its process still believes it owns is no longer a
// current member's — and its return or its fencing adds no second removal.
// Every group epoch bump is a NoteRebalance.
//
// # Simplifications
//
//   - Topic ids are topic names, every assigned topic resolves at once (no
//     metadata wait before reconciling), and regex subscriptions and racks
//     are not modelled.
//   - The client commits offsets before revoking only as part of the revoke
//     callback (sim.Callback.Commit); Kafka also commits when nothing is
//     revoked. An empty onPartitionsAssigned is not invoked.
//   - The coordinator runs 4.0's reconciliation (reconcile.Kafka40) and
//     recomputes the target on the heartbeat that finds the group epoch
//     ahead of it; GroupConfig.AssignmentInterval (the newer
//     group.consumer.assignment.interval.ms) defers that to the first
//     heartbeat after the interval, without a timer of its own.
//   - The coordinator mints member ids "<client.id>-<n>" (Kafka: UUIDs) and
//     breaks ties between equally popular server assignors by name (Kafka:
//     hash order). GroupConfig.MaxSize serves as both group.max.size and
//     group.consumer.max.size.
//   - Retries back off exponentially without jitter; a request that times
//     out is abandoned, and its late response dropped, by correlation id.
//     close() completes on the leave heartbeat's response or timeout; a
//     member that never got an id sends no leave.
//   - A classic member's LeaveGroup answer carries one error code, not one
//     per member; JoinGroup session timeouts are not range-checked once the
//     group is a consumer group.
//
// Kafka 4.0's hazards are kept, not fixed: a consumer keeps its member id
// when it rejoins; a static member restarted without leaving gets
// UNRELEASED_INSTANCE_ID and fails; a downgrade hands members their targets,
// which a member that has not revoked yet does not match.
package nextgen
