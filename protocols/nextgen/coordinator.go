package nextgen

import (
	"fmt"
	"github.com/rebalsim/rebalsim/protocols/nextgen/assignor"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/internal/slab"
	"github.com/rebalsim/rebalsim/sim"
)

// GroupType is what kind of group the coordinator holds.
type GroupType string

const (
	TypeClassic  GroupType = "classic"
	TypeConsumer GroupType = "consumer"
)

// The consumer group's timers, one of each kind per member; classic timers
// keep classic.Group's kinds, and a timer of the kind of group the
// coordinator no longer holds does nothing (Kafka's timers fail the group
// type check the same way).
var (
	// timerSession fences a member that stopped heartbeating.
	timerSession = sim.NewTimerKind("consumer-session")
	// timerRebalance fences a member that did not reconcile within its
	// rebalance timeout.
	timerRebalance = sim.NewTimerKind("consumer-rebalance")
	// timerJoin fences a classic member that did not rejoin in time.
	timerJoin = sim.NewTimerKind("consumer-join")
	// timerSync fences a classic member that did not sync in time.
	timerSync = sim.NewTimerKind("consumer-sync")
)

// Coordinator is the group coordinator for one group that is either a
// classic group or a consumer group, as GroupMetadataManager holds it: while
// the group is classic (or empty) every classic request goes to an embedded
// classic.Group unchanged; a ConsumerGroupHeartbeat replaces an empty
// classic group or converts a non-empty one (online upgrade); a consumer
// group serves both ConsumerGroupHeartbeat and the classic requests of
// members that still speak the classic protocol, and turns back into a
// classic group when its last consumer-protocol member goes (online
// downgrade). It implements sim.GroupCoordinator.
type Coordinator struct {
	cfg sim.GroupConfig
	// assignors resolves server assignor names, custom ones included.
	assignors assignor.Set
	// Exactly one of classic and consumer is set.
	classic  *classic.Group
	consumer *consumerGroup
	// nextID numbers the member ids the coordinator mints. It continues the
	// classic group's counter across conversions, so that an id is never
	// handed out twice.
	nextID int
	// handles numbers the member ids for their timers, for the consumer
	// group and the classic groups alike, so that a member keeps its
	// handle when the group changes type.
	handles *sim.MemberHandles
	// lastState is the consumer group state last reported in a note.
	lastState GroupState
	// alwaysReconcile turns off maybeReconcile's shortcut for a stable
	// member that holds its target, so that a test can check the
	// shortcut against CurrentAssignmentBuilder itself.
	alwaysReconcile bool
	// responses makes the answers to ConsumerGroupHeartbeats (package
	// slab).
	responses slab.Slab[ConsumerGroupHeartbeatResponse]
}

// NewCoordinator returns a coordinator holding an empty classic group, which
// is how Kafka sees a group id nobody has used: the first request decides
// its type.
//
// Server assignors in extra are offered beside the built-in uniform and
// range, and win over a built-in of the same name.
func NewCoordinator(cfg sim.GroupConfig, extra ...assignor.Assignor) *Coordinator {
	c := &Coordinator{cfg: cfg, assignors: assignor.NewSet(extra...), classic: classic.NewGroup(cfg), handles: &sim.MemberHandles{}}
	c.classic.ShareHandles(c.handles)
	return c
}

// Type tells whether the group is classic or consumer.
func (c *Coordinator) Type() GroupType {
	if c.consumer != nil {
		return TypeConsumer
	}
	return TypeClassic
}

// Stable reports whether no rebalance is in progress: for a consumer group,
// STABLE or EMPTY.
func (c *Coordinator) Stable() bool {
	if c.consumer != nil {
		// The state can only change on an input, and every input ends in
		// maybeUpdateGroupState; reading it back keeps this O(1), which
		// matters because the simulator asks after every event.
		return c.lastState == GroupStable || c.lastState == GroupEmpty
	}
	return c.classic.Stable()
}

// State names the group state.
func (c *Coordinator) State() string {
	if c.consumer != nil {
		return c.consumer.state().String()
	}
	return c.classic.State()
}

// GroupEpoch is the consumer group's epoch, or the classic generation.
func (c *Coordinator) GroupEpoch() int32 {
	if c.consumer != nil {
		return c.consumer.groupEpoch
	}
	return c.classic.Generation()
}

// Receive dispatches a request by its kind and the group's type
// (GroupMetadataManager.consumerGroupHeartbeat, classicGroupJoin,
// classicGroupSync, classicGroupHeartbeat, classicGroupLeave).
func (c *Coordinator) Receive(env sim.CoordinatorEnv, from sim.Endpoint, msg sim.Message, out *sim.Effects) {
	switch req := msg.(type) {
	case *ConsumerGroupHeartbeatRequest:
		c.onConsumerGroupHeartbeat(env, from, req, out)
	case *classic.JoinGroupRequest:
		if c.consumer != nil && !c.consumer.isEmpty() {
			c.classicGroupJoinToConsumerGroup(env, from, *req, out)
			break
		}
		if c.consumer != nil {
			// An empty consumer group makes way for a classic group
			// (maybeDeleteEmptyConsumerGroup).
			c.becomeClassic(classic.NewGroup(c.cfg), out)
		}
		c.classic.Receive(env, from, msg, out)
	case *classic.SyncGroupRequest:
		if c.consumer == nil {
			c.classic.Receive(env, from, msg, out)
			break
		}
		c.classicGroupSyncToConsumerGroup(env, from, *req, out)
	case *classic.HeartbeatRequest:
		if c.consumer == nil {
			c.classic.Receive(env, from, msg, out)
			break
		}
		out.Send(from, &classic.HeartbeatResponse{Error: c.classicGroupHeartbeatToConsumerGroup(env, from, *req, out)})
	case *classic.LeaveGroupRequest:
		if c.consumer == nil {
			c.classic.Receive(env, from, msg, out)
			break
		}
		out.Send(from, &classic.LeaveGroupResponse{Error: c.classicGroupLeaveToConsumerGroup(env, *req, out)})
	case sim.OffsetCommit:
		c.onOffsetCommit(env, from, msg, req, out)
	default:
		panic(fmt.Sprintf("nextgen coordinator: unexpected message %T", msg))
	}
	c.maybeUpdateGroupState(out)
}

// Timer handles the coordinator's timers.
func (c *Coordinator) Timer(env sim.CoordinatorEnv, id sim.TimerID, out *sim.Effects) {
	switch id.Kind {
	case timerSession, timerRebalance, timerJoin, timerSync:
	default:
		if c.classic != nil {
			c.classic.Timer(env, id, out)
		}
		return
	}
	if c.consumer == nil {
		return
	}
	switch id.Kind {
	case timerSession:
		c.onSessionTimeout(env, id.Member, out)
	case timerRebalance:
		c.onRebalanceTimeout(env, id.Member, out)
	case timerJoin:
		if m := c.consumer.byID[id.Member]; m != nil {
			m.joinTimerArmed = false
		}
		c.fenceByTimer(env, id.Member, "the classic member failed to join within the rebalance timeout", out)
	case timerSync:
		c.fenceByTimer(env, id.Member, "the member failed to sync within the rebalance timeout", out)
	}
	c.maybeUpdateGroupState(out)
}

// MetadataChanged makes a consumer group refresh its subscription metadata
// on the next heartbeat (a new metadata image marks subscribed groups for
// refresh); a classic group leaves it to its leader.
func (c *Coordinator) MetadataChanged(env sim.CoordinatorEnv, out *sim.Effects) {
	if c.consumer != nil {
		c.consumer.metadataExpired = true
		return
	}
	c.classic.MetadataChanged(env, out)
}

// mintID hands out a new member id: Kafka's Uuid string, which a member of
// a consumer group gets whichever protocol it speaks
// (GroupMetadataManager.consumerGroupHeartbeat and
// classicGroupJoinToConsumerGroup mint Uuid.randomUuid().toString(); since
// KIP-1082 a consumer-protocol client draws the same kind of id itself and
// keeps it when fenced, as the model's client keeps the one it was given).
// A coordinator driven without an id source (transcript tests) numbers its
// ids after the client id instead.
func (c *Coordinator) mintID(env sim.CoordinatorEnv, from sim.Endpoint, clientID string) string {
	if env.MemberIDs == nil {
		c.nextID++
		return fmt.Sprintf("%s-%d", clientID, c.nextID)
	}
	return env.MemberIDs.Mint(from, kafka.Uuid.String)
}

// becomeClassic makes g the group, with the id counter and the handles
// carried over.
func (c *Coordinator) becomeClassic(g *classic.Group, out *sim.Effects) {
	g.ContinueIDs(c.nextID)
	g.ShareHandles(c.handles)
	c.classic, c.consumer = g, nil
	out.Note(sim.Note{Kind: sim.NoteGroupType, Detail: string(TypeClassic), Value: int64(g.Generation())})
}

// becomeConsumer makes g the group.
func (c *Coordinator) becomeConsumer(g *consumerGroup, out *sim.Effects) {
	if c.classic != nil {
		c.nextID = max(c.nextID, c.classic.NextID())
	}
	c.classic, c.consumer = nil, g
	c.lastState = -1
	out.Note(sim.Note{Kind: sim.NoteGroupType, Detail: string(TypeConsumer), Value: int64(g.groupEpoch)})
}

// maybeUpdateGroupState reports a consumer group's new state.
func (c *Coordinator) maybeUpdateGroupState(out *sim.Effects) {
	if c.consumer == nil {
		return
	}
	if s := c.consumer.state(); s != c.lastState {
		c.lastState = s
		out.Note(sim.Note{Kind: sim.NoteGroupState, Detail: s.String(), Value: int64(c.consumer.groupEpoch)})
	}
}

// bumpGroupEpoch moves the group epoch on; every bump is a rebalance for
// the metrics (CONSUMER_GROUP_REBALANCES_SENSOR_NAME).
func (c *Coordinator) bumpGroupEpoch(reason string, out *sim.Effects) {
	g := c.consumer
	g.groupEpoch++
	out.Note(sim.Note{Kind: sim.NoteRebalance, Value: int64(g.groupEpoch), Detail: "group epoch bumped: " + reason})
}

func (c *Coordinator) noteMemberAdded(m *member, out *sim.Effects) {
	out.Note(sim.Note{Kind: sim.NoteMemberAdded, Process: m.endpoint.Process, MemberID: m.id})
}

// noteMemberRemoved tells the ledger a member is gone, unless it already
// was: a static member that left with epoch -2 was reported then.
func (c *Coordinator) noteMemberRemoved(m *member, reason string, out *sim.Effects) {
	if m.Epoch == LeaveGroupStaticMemberEpoch {
		return
	}
	out.Note(sim.Note{Kind: sim.NoteMemberRemoved, Process: m.endpoint.Process, MemberID: m.id, Detail: reason})
}

// cancelTimers cancels every timer of a member (GroupMetadataManager.cancelTimers).
func (c *Coordinator) cancelTimers(m *member, out *sim.Effects) {
	for _, kind := range []sim.TimerKind{timerSession, timerRebalance, timerJoin, timerSync} {
		out.CancelTimer(m.timer(kind))
	}
}
