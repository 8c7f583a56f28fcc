// Package classic models the classic consumer group protocol
// (group.protocol=classic, reference §2): the group coordinator's join and
// sync phases, generations, the leader that computes the assignment,
// heartbeats, session expiry and static membership, and the consumer that
// joins, syncs and heartbeats. It is what the EAGER and COOPERATIVE
// rebalance protocols share; the one thing that differs between them, what
// a member gives up around a rebalance, is a Strategy (packages eager and
// cooperative), so that an eager and a cooperative member can sit in one
// group, as they do during the KIP-429 upgrade.
//
// # The protocol
//
// A rebalance is a barrier. When membership or a subscription changes,
// the coordinator moves the group to PREPARING_REBALANCE and answers
// heartbeats with REBALANCE_IN_PROGRESS; every member must send JoinGroup
// again within the rebalance timeout (max.poll.interval.ms), or be
// removed. Once all have joined (or the timeout has passed, or for a new
// group the initial rebalance delay), the coordinator bumps the
// generation and answers every JoinGroup; the leader's response carries
// every member's subscription, and the leader runs the assignor
// (package assignor) on the client. Every member then sends SyncGroup,
// the leader's with the assignment, and each gets its share back. A
// member that misses heartbeats for session.timeout.ms is removed, which
// starts another rebalance, unless it is a static member
// (group.instance.id), whose return within the session timeout is no
// rebalance at all.
//
// # The models
//
//   - Group is the coordinator of one group, as GroupMetadataManager's
//     classicGroup* methods run it (ClassicGroupState: EMPTY,
//     PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD). Each
//     request or timer has one handler, and each transition one method
//     named as Kafka names it (onJoinGroup, prepareRebalance,
//     completeJoin, onSyncGroup, expireMemberHeartbeat). It serves a
//     group that only ever sees classic members; package nextgen wraps
//     it for a group that turns into a consumer group (see export.go).
//   - Client implements sim.Client: AbstractCoordinator and
//     ConsumerCoordinator (UNJOINED, PREPARING_REBALANCE,
//     COMPLETING_REBALANCE, STABLE). JoinGroup and SyncGroup are sent
//     from poll() on the application thread, heartbeats from the
//     background thread, so a stalled application delays the rebalance
//     exactly as the real consumer's does.
//
// # Use
//
// Package protocols builds the models for the simulator:
//
//	group := classic.NewGroup(groupConfig) // sim.GroupCoordinator
//	as := []assignor.Assignor{assignor.Range()}
//	client := classic.NewClient(endpoint, consumerConfig, eager.Strategy{}, as) // sim.Client
//
// RebalanceProtocolOf picks EAGER or COOPERATIVE from the configured
// assignors, as ConsumerCoordinator's constructor does.
//
// # The duties of the client, in order
//
// For one rebalance, Client:
//
//  1. On the poll() that finds a rebalance needed, notes its start and
//     asks the Strategy what to give up before joining (onJoinPrepare):
//     EAGER revokes everything, COOPERATIVE only what it no longer
//     subscribes to; after a fenced generation everything owned is lost.
//     It sends JoinGroup only once those callbacks are done.
//  2. On the JoinGroup response, if it is the leader, runs the assignor
//     the coordinator selected (one every member supports, by the
//     members' votes) over the members' subscriptions and owned
//     partitions; then it sends SyncGroup.
//  3. On the SyncGroup response, asks the Strategy what to revoke and what
//     to add (onJoinComplete), asks for those callbacks (revoked before
//     assigned), notes the rebalance's end and, if the Strategy says so
//     (COOPERATIVE after a revocation), rejoins at once.
//  4. Between rebalances, heartbeats every heartbeat.interval.ms. A
//     REBALANCE_IN_PROGRESS answer starts the next rebalance; an
//     ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID one means the member was
//     fenced, and it rejoins with its partitions lost (step 1); a
//     FENCED_INSTANCE_ID one is fatal, as Kafka's
//     FencedInstanceIdException is.
//
// The ledger learns of ownership only from the callbacks the client asks
// for, so a Strategy that lets a partition reach a new owner before the
// old one has revoked it is reported as double ownership, not trusted.
package classic
