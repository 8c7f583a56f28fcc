package nextgen

import (
	"fmt"
	"slices"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/internal/slab"
	"github.com/rebalsim/rebalsim/sim"
)

// MemberState is the new consumer's membership state (the client's
// MemberState, reference §4.6).
type MemberState int

const (
	Unsubscribed MemberState = iota
	Joining
	Reconciling
	Acknowledging
	MemberStable
	Fenced
	PrepareLeaving
	Leaving
	Fatal
	Stale
)

func (s MemberState) String() string {
	return [...]string{"UNSUBSCRIBED", "JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE", "FENCED",
		"PREPARE_LEAVING", "LEAVING", "FATAL", "STALE"}[s]
}

// previousValidStates is MemberState's transition table: a transition from
// any other state is a bug and panics.
var previousValidStates = map[MemberState][]MemberState{
	MemberStable:   {Joining, Acknowledging, Reconciling},
	Reconciling:    {MemberStable, Joining, Acknowledging, Reconciling},
	Acknowledging:  {Reconciling},
	Fatal:          {Joining, MemberStable, Reconciling, Acknowledging, PrepareLeaving, Leaving, Unsubscribed},
	Fenced:         {Joining, MemberStable, Reconciling, Acknowledging, PrepareLeaving, Leaving},
	Joining:        {Fenced, Unsubscribed, Stale},
	PrepareLeaving: {Joining, MemberStable, Reconciling, Acknowledging, Unsubscribed},
	Leaving:        {PrepareLeaving},
	Unsubscribed:   {PrepareLeaving, Leaving, Fenced},
	Stale:          {Leaving},
}

// canHandleNewAssignment: the states from which RECONCILING may be entered.
func (s MemberState) canHandleNewAssignment() bool {
	return slices.Contains(previousValidStates[Reconciling], s)
}

// localAssignment is the client's LocalAssignment: a set of partitions with
// a local epoch that moves whenever the target changes, so that a
// reconciled assignment is reported to the coordinator even if it has the
// same partitions as the last one reported. noAssignment (epoch -1) is
// LocalAssignment.NONE.
type localAssignment struct {
	epoch      int64
	partitions kafka.Assignment
}

var noAssignment = localAssignment{epoch: -1, partitions: kafka.Assignment{}}

func (a localAssignment) isNone() bool { return a.epoch == -1 }

func (a localAssignment) equal(b localAssignment) bool {
	return a.epoch == b.epoch && a.partitions.Equal(b.partitions)
}

// updateWith is LocalAssignment.updateWith: a new target gets the next
// local epoch unless it has the same partitions as the current one.
func (a localAssignment) updateWith(p kafka.Assignment) (localAssignment, bool) {
	if !a.isNone() && a.partitions.Equal(p) {
		return a, false
	}
	return localAssignment{epoch: a.epoch + 1, partitions: p.Clone()}, true
}

// defaultHeartbeatInterval is used until the coordinator says otherwise:
// the default of group.consumer.heartbeat.interval.ms.
func defaultHeartbeatInterval() time.Duration { return sim.DefaultGroupConfig().HeartbeatInterval }

// Client timers, on the background (network) thread.
var (
	// timerHeartbeat wakes the background thread when a heartbeat is due.
	timerHeartbeat = sim.NewTimerKind("heartbeat")
	// timerRequestTimeout gives up on a heartbeat with no answer.
	timerRequestTimeout = sim.NewTimerKind("request-timeout")
)

// Client is the new consumer (group.protocol=consumer) of one process
// incarnation: the membership manager (AbstractMembershipManager,
// ConsumerMembershipManager) and the heartbeat request manager
// (AbstractHeartbeatRequestManager, ConsumerHeartbeatRequestManager) that
// run on the background thread, with rebalance callbacks run on the
// application thread. It implements sim.Client.
type Client struct {
	// The member's state comes first and the configuration last, so that
	// a heartbeat reads a few cache lines of the client rather than most
	// of them: in a large group the clients do not all fit in a core's
	// cache.
	state        MemberState
	memberID     string
	memberEpoch  int32
	subscription []string
	// subscriptionUpdated is set by subscribe() and consumed by the next
	// poll (AbstractMembershipManager.onConsumerPoll).
	subscriptionUpdated bool

	// current is the assignment reconciled and reported; target the latest
	// received from the coordinator; owned what the application holds
	// (SubscriptionState.assignedPartitions).
	current localAssignment
	target  localAssignment
	owned   kafka.Assignment

	reconciliationInProgress              bool
	rejoinedWhileReconciliationInProgress bool
	// isPollTimerExpired is set when the member left because the
	// application did not poll within max.poll.interval.ms.
	isPollTimerExpired bool
	// staleReleased is set once a STALE member's lost callback completed;
	// rejoinWhenReleased when the application polled before that.
	staleReleased      bool
	rejoinWhenReleased bool
	// leaveInProgress is close()'s pending leave; leaveDone once it completed.
	closing         bool
	leaveInProgress bool
	leaveDone       bool

	// The heartbeat request manager's state.
	interval      time.Duration
	nextHeartbeat time.Duration // when the heartbeat timer expires
	backoff       time.Duration
	backoffUntil  time.Duration
	// inFlight is the correlation id of the request whose response counts,
	// 0 if none.
	inFlight        int32
	nextCorrelation int32
	timerAt         time.Duration
	sent            sentFields
	// heartbeats makes the client's requests (package slab).
	heartbeats slab.Slab[ConsumerGroupHeartbeatRequest]

	nextToken int
	// pending are the callbacks asked for and not yet returned, oldest
	// first, each with what follows it.
	pending []pendingCallback

	self sim.Endpoint
	cfg  sim.ConsumerConfig
}

// sentFields are the fields of the last request, so that only changes are
// sent (ConsumerHeartbeatRequestManager.HeartbeatState.SentFields).
type sentFields struct {
	rebalanceTimeoutMs int32
	subscription       []string
	serverAssignor     string
	local              localAssignment
	hasLocal           bool
}

func (s *sentFields) reset() { *s = sentFields{rebalanceTimeoutMs: -1} }

// NewClient returns a consumer-protocol client for one incarnation.
func NewClient(self sim.Endpoint, cfg sim.ConsumerConfig) *Client {
	c := &Client{self: self, cfg: cfg, current: noAssignment, target: noAssignment, owned: kafka.Assignment{},
		interval: defaultHeartbeatInterval()}
	c.sent.reset()
	return c
}

func (c *Client) static() bool { return c.cfg.GroupInstanceID != "" }

// transitionTo changes state, checking Kafka's transition table, and
// reports rebalance start and end as the client's rebalance metrics do
// (a rebalance starts on entering RECONCILING and ends when leaving it for
// ACKNOWLEDGING or STABLE).
func (c *Client) transitionTo(next MemberState, out *sim.Effects) {
	if c.state == next {
		return
	}
	if !slices.Contains(previousValidStates[next], c.state) {
		panic(fmt.Sprintf("nextgen client %s: invalid transition from %s to %s", c.self.Process, c.state, next))
	}
	if c.state == Reconciling && (next == MemberStable || next == Acknowledging) {
		out.Note(sim.Note{Kind: sim.NoteRebalanceEnd, Process: c.self.Process, MemberID: c.memberID, Value: int64(c.memberEpoch)})
	}
	if next == Reconciling {
		out.Note(sim.Note{Kind: sim.NoteRebalanceStart, Process: c.self.Process, MemberID: c.memberID, Value: int64(c.memberEpoch)})
	}
	c.state = next
	out.Note(sim.Note{Kind: sim.NoteClientState, Process: c.self.Process, MemberID: c.memberID, Detail: next.String(), Value: int64(c.memberEpoch)})
}

// Start subscribes. The member joins on the application's first poll.
func (c *Client) Start(env sim.ClientEnv, out *sim.Effects) {
	c.subscription = sortedTopics(c.cfg.Subscription)
	c.subscriptionUpdated = true
	out.WantPoll = true
}

// Poll is the application's poll(): a subscribed member that is not in the
// group joins (onConsumerPoll), and a member that left because its poll
// timer expired rejoins once it has released its partitions
// (resetPollTimer → maybeRejoinStaleMember).
func (c *Client) Poll(env sim.ClientEnv, out *sim.Effects) {
	if c.subscriptionUpdated {
		c.subscriptionUpdated = false
		if c.state == Unsubscribed && !c.closing {
			c.transitionToJoining(out)
		}
	}
	if c.isPollTimerExpired {
		c.maybeRejoinStaleMember(out)
	}
	if env.PollEvent {
		c.maybeReconcile(env, true, out)
	}
	c.runBackground(env, out)
}

// Receive handles the coordinator's responses.
func (c *Client) Receive(env sim.ClientEnv, msg sim.Message, out *sim.Effects) {
	r, ok := msg.(*ConsumerGroupHeartbeatResponse)
	if !ok {
		panic(fmt.Sprintf("nextgen client: unexpected message %T", msg))
	}
	c.onResponse(env, r, out)
	c.runBackground(env, out)
}

// Timer handles the client's timers.
func (c *Client) Timer(env sim.ClientEnv, id sim.TimerID, out *sim.Effects) {
	switch id.Kind {
	case timerHeartbeat:
		c.timerAt = 0
	case timerRequestTimeout:
		if c.inFlight != 0 {
			c.onFailure(env, out)
		}
	default:
		panic(fmt.Sprintf("nextgen client: unknown timer %q", id))
	}
	c.runBackground(env, out)
}

// CallbackDone continues whatever waited for the callback.
func (c *Client) CallbackDone(env sim.ClientEnv, cb sim.Callback, out *sim.Effects) {
	i := slices.IndexFunc(c.pending, func(p pendingCallback) bool { return p.token == cb.Token })
	if i < 0 {
		panic(fmt.Sprintf("nextgen client %s: unknown callback token %d", c.self.Process, cb.Token))
	}
	p := c.pending[i]
	c.pending = slices.Delete(c.pending, i, i+1)
	c.continueAfter(env, p, out)
	c.runBackground(env, out)
}

// runBackground is what the background thread's loop does after an input:
// the membership manager reconciles a new assignment, the heartbeat request
// manager sends what is due, and a target that sending an acknowledgement
// revealed as still unreconciled is picked up at once (the loop's next
// iteration).
func (c *Client) runBackground(env sim.ClientEnv, out *sim.Effects) {
	c.maybeReconcile(env, false, out)
	c.pollHeartbeat(env, out)
	c.maybeReconcile(env, false, out)
}

// Close is close(): leave the group after releasing the partitions
// (AbstractMembershipManager.leaveGroup).
func (c *Client) Close(env sim.ClientEnv, out *sim.Effects) {
	c.closing = true
	c.leaveGroup(env, out)
	c.runBackground(env, out)
}

// Closed reports whether the leave finished and no callback is running.
func (c *Client) Closed() bool { return c.leaveDone && len(c.pending) == 0 }

// Subscribe changes the subscription; the next heartbeat carries it.
func (c *Client) Subscribe(env sim.ClientEnv, topics []string, out *sim.Effects) {
	c.subscription = sortedTopics(topics)
	c.subscriptionUpdated = true
	if c.state == Unsubscribed {
		out.WantPoll = true
	}
	c.runBackground(env, out)
}

// Settled reports a stable member with nothing pending.
func (c *Client) Settled() bool {
	return c.state == MemberStable && !c.reconciliationInProgress && len(c.pending) == 0 && !c.closing
}

// Rebalancing reports a member joining or reconciling.
func (c *Client) Rebalancing() bool {
	return c.state == Joining || c.state == Reconciling || c.state == Acknowledging
}

// Fenced reports a member that knows it is out of the group and has not
// rejoined yet.
func (c *Client) Fenced() bool { return c.state == Fenced || c.state == Stale }

// State names the membership state and, while callbacks are outstanding,
// what follows each ("RECONCILING, then assign").
func (c *Client) State() string {
	if len(c.pending) == 0 {
		return c.state.String()
	}
	s := c.state.String() + ", then"
	for i, p := range c.pending {
		if i > 0 {
			s += ","
		}
		s += " " + p.then.String()
	}
	return s
}

// MemberState returns the membership state.
func (c *Client) MemberState() MemberState { return c.state }

// MemberID and MemberEpoch are the member's identity as last heard.
func (c *Client) MemberID() string   { return c.memberID }
func (c *Client) MemberEpoch() int32 { return c.memberEpoch }

// Owned returns the partitions the application holds.
func (c *Client) Owned() kafka.Assignment { return c.owned }

// OffsetCommit names the member in an OffsetCommit: its member id and the
// member epoch it last received, which the membership manager hands the
// CommitRequestManager (MemberStateListener.onMemberEpochUpdated) for
// every commit it sends (CommitRequestManager.OffsetCommitRequestState).
//
// The client has no CommitResponder, as Kafka's reacts to no rejection:
// OffsetCommitRequestState.onResponse fails the commit's future with
// CommitFailedException on UNKNOWN_MEMBER_ID and with the
// StaleMemberEpochException on STALE_MEMBER_EPOCH, and tells the
// membership manager nothing (FENCED_MEMBER_EPOCH is not a commit error;
// the heartbeat reports fencing). The commit before a revocation
// (maybeAutoCommitSyncBeforeRevocation → commitSyncWithRetries) retries
// only a RetriableException, which neither error is, in 4.0 and in 4.3.1
// alike (read from the 4.3.1 kafka-clients jar); the revocation goes on
// after a failed commit (ConsumerMembershipManager.revokeAndAssign).
func (c *Client) OffsetCommit(tps []kafka.TopicPartition) sim.OffsetCommit {
	return sim.OffsetCommit{MemberID: c.memberID, GroupInstanceID: c.cfg.GroupInstanceID, GenerationIDOrMemberEpoch: c.memberEpoch, Partitions: tps}
}
