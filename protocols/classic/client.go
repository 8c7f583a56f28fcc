package classic

import (
	"fmt"
	"slices"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic/assignor"
	"github.com/rebalsim/rebalsim/sim"
)

// Strategy is what differs between the EAGER and COOPERATIVE rebalance
// protocols on the client (ConsumerCoordinator.onJoinPrepare and
// onJoinComplete); packages eager and cooperative implement it.
type Strategy interface {
	// Protocol names the rebalance protocol.
	Protocol() kafka.RebalanceProtocol
	// OnJoinPrepare returns the owned partitions to revoke before sending
	// JoinGroup.
	OnJoinPrepare(owned kafka.Assignment, subscription []string) (revoke kafka.Assignment)
	// OnJoinComplete compares the owned partitions with the new assignment:
	// what to revoke, what to add, and whether a follow-up rebalance is due.
	OnJoinComplete(owned, assigned kafka.Assignment) (revoke, add kafka.Assignment, rejoin bool)
}

// memberState is AbstractCoordinator.MemberState.
type memberState int

const (
	unjoined memberState = iota
	preparingRebalance
	completingRebalance
	stable
)

func (s memberState) String() string {
	return [...]string{"UNJOINED", "PREPARING_REBALANCE", "COMPLETING_REBALANCE", "STABLE"}[s]
}

// The client's timers.
var (
	// timerHeartbeat is the heartbeat thread's next pass.
	timerHeartbeat = sim.NewTimerKind("heartbeat")
	// timerHeartbeatTimeout gives up on a heartbeat that got no answer
	// within request.timeout.ms.
	timerHeartbeatTimeout = sim.NewTimerKind("hb-timeout")
	// timerJoinTimeout gives up on a JoinGroup that got no answer.
	timerJoinTimeout = sim.NewTimerKind("join-timeout")
	// timerSyncTimeout ends a SyncGroup whose response never came
	// (request.timeout.ms): the member rejoins.
	timerSyncTimeout = sim.NewTimerKind("sync-timeout")
	// timerRetry ends a retry backoff: poll() tries to join again.
	timerRetry = sim.NewTimerKind("retry")
	// timerMetadata is the next metadata refresh (metadata.max.age.ms).
	timerMetadata = sim.NewTimerKind("metadata")
)

// afterCallbacks is what the client does once the rebalance callbacks it
// asked for have all returned.
type afterCallbacks int

const (
	// thenNothing: no callbacks are outstanding.
	thenNothing afterCallbacks = iota
	// thenJoin sends JoinGroup: onJoinPrepare's revoke (or lost) is done.
	thenJoin
	// thenRejoinIfNeeded asks for a poll if the completed rebalance needs
	// a follow-up one: onJoinComplete's callbacks are done.
	thenRejoinIfNeeded
	// thenLeave leaves the group: close()'s revoke (or lost) is done.
	thenLeave
)

func (a afterCallbacks) String() string {
	return [...]string{"nothing", "join", "rejoin-if-needed", "leave"}[a]
}

// prepareCommitState is where onJoinPrepare's auto-commit stands.
type prepareCommitState int

const (
	prepareCommitNone prepareCommitState = iota
	prepareCommitWaiting
	prepareCommitAnswered
)

// Client is a classic-protocol consumer: the application thread's poll()
// that prepares, joins and completes rebalances, and the background
// heartbeat thread (AbstractCoordinator, ConsumerCoordinator).
//
// Assignments and topic lists are values: the client replaces them and
// never changes one in place, and neither does anyone it shares them with
// (messages, the coordinator, the assignors). So they are shared rather
// than copied into every JoinGroup of a large group.
type Client struct {
	// The state every heartbeat and every check of the simulator reads
	// comes first, side by side, ahead of the configuration: in a large
	// group the clients do not all fit in a core's cache.
	state      memberState
	generation int32
	memberID   string

	rejoinNeeded bool
	// joinPrepared is AbstractCoordinator.needsJoinPrepare inverted:
	// onJoinPrepare runs once per rebalance, however many JoinGroup
	// attempts it takes.
	joinPrepared bool
	joinInFlight bool
	syncInFlight bool
	heartbeatOn  bool
	hbInFlight   bool
	fenced       bool
	closing      bool
	closed       bool
	pendingCbs   int
	fatal        string
	// heartbeat is the last HeartbeatRequest sent, kept to send again
	// while the member id and generation stay the same: a heartbeat is the
	// most frequent message, and one made once need not be made again.
	heartbeat    *HeartbeatRequest
	heartbeatFor HeartbeatRequest
	// prepareCommit follows onJoinPrepare's auto-commit: the JoinGroup
	// waits until it is answered (see onJoinPrepare).
	prepareCommit prepareCommitState

	self      sim.Endpoint
	cfg       sim.ConsumerConfig
	strategy  Strategy
	assignors []assignor.Assignor

	protocolName string
	owned        kafka.Assignment
	// lastAssigned and lastGeneration are the StickyAssignor's userData.
	lastAssigned   kafka.Assignment
	lastGeneration int32
	subscription   []string
	metadata       []kafka.Topic
	// assignedMetadata is the partition count of each subscribed topic the
	// leader last assigned, to notice new partitions.
	assignedMetadata map[string]int32
	// assignScratch is the assignor's working memory, kept from one
	// rebalance this client leads to the next.
	assignScratch assignor.Scratch

	backoffUntil time.Duration
	backoff      time.Duration
	// then is what follows the pendingCbs outstanding callbacks.
	then          afterCallbacks
	nextCallbackT int
}

// NewClient builds a classic client. strategy is the rebalance protocol the
// configured assignors allow; assignors are the configured ones, in order.
func NewClient(self sim.Endpoint, cfg sim.ConsumerConfig, strategy Strategy, assignors []assignor.Assignor) *Client {
	return &Client{self: self, cfg: cfg, strategy: strategy, assignors: assignors, generation: -1, lastGeneration: -1, owned: kafka.Assignment{}}
}

// RebalanceProtocolOf returns the highest rebalance protocol that every
// configured assignor supports (ConsumerCoordinator's constructor).
func RebalanceProtocolOf(assignors []assignor.Assignor) (kafka.RebalanceProtocol, error) {
	if len(assignors) == 0 {
		return 0, fmt.Errorf("no assignors configured")
	}
	common := assignors[0].Protocols()
	for _, a := range assignors[1:] {
		common = slices.DeleteFunc(slices.Clone(common), func(p kafka.RebalanceProtocol) bool { return !slices.Contains(a.Protocols(), p) })
	}
	if len(common) == 0 {
		return 0, fmt.Errorf("assignors %v share no rebalance protocol", names(assignors))
	}
	return slices.Max(common), nil
}

func names(as []assignor.Assignor) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name())
	}
	return out
}

func (c *Client) dynamic() bool { return c.cfg.GroupInstanceID == "" }

// Start subscribes and asks for the first poll, which joins the group.
func (c *Client) Start(env sim.ClientEnv, out *sim.Effects) {
	c.subscription = slices.Clone(c.cfg.Subscription)
	c.metadata = env.Metadata
	c.rejoinNeeded = true
	out.SetClientTimer(sim.TimerID{Kind: timerMetadata}, env.Now+c.cfg.MetadataMaxAge, sim.BackgroundThread)
	out.WantPoll = true
}

// Poll is poll(): if a rebalance is needed, prepare for it (once) and send
// JoinGroup. Everything else of the rebalance follows from responses.
func (c *Client) Poll(env sim.ClientEnv, out *sim.Effects) {
	if c.closing || c.fatal != "" || !c.rejoinNeeded || c.joinInFlight || c.pendingCbs > 0 {
		return
	}
	if c.syncInFlight {
		// The rebalance's SyncGroup is still pending (AbstractCoordinator
		// keeps its joinFuture). A heartbeat that reset the generation
		// meanwhile asked for onJoinPrepare again (resetStateAndRejoin
		// sets needsJoinPrepare): it runs now, losing the partitions, and
		// the next JoinGroup waits for the SyncGroup to end.
		if !c.joinPrepared {
			c.joinPrepared = true
			c.onJoinPrepare(env, out)
		}
		return
	}
	if env.Now < c.backoffUntil {
		out.SetClientTimer(sim.TimerID{Kind: timerRetry}, c.backoffUntil, sim.AppThread)
		return
	}
	switch c.prepareCommit {
	case prepareCommitWaiting:
		return // the JoinGroup waits for onJoinPrepare's commit
	case prepareCommitAnswered:
		// The first poll() after the commit was answered: onJoinPrepare
		// finds it done and the JoinGroup goes out.
		c.prepareCommit = prepareCommitNone
	default:
		out.Note(sim.Note{Kind: sim.NoteRebalanceStart, Process: c.self.Process, MemberID: c.memberID})
		if !c.joinPrepared {
			c.joinPrepared = true
			if c.onJoinPrepare(env, out) || c.prepareCommit == prepareCommitWaiting {
				return // JoinGroup goes out when the callbacks are done, or the commit answered
			}
		}
	}
	c.sendJoinGroup(env, out)
}

// CommitAnswered is onJoinPrepare's auto-commit answered (or timed out):
// the next poll() joins.
func (c *Client) CommitAnswered(env sim.ClientEnv, out *sim.Effects) {
	if c.prepareCommit == prepareCommitWaiting {
		c.prepareCommit = prepareCommitAnswered
		out.WantPoll = true
	}
}

// onJoinPrepare revokes (or, after a fenced generation, loses) partitions
// before rejoining; it reports whether callbacks are pending.
func (c *Client) onJoinPrepare(env sim.ClientEnv, out *sim.Effects) bool {
	if c.generation < 0 {
		if c.owned.Size() > 0 {
			lost := c.owned
			c.owned = kafka.Assignment{}
			return c.callbacks(out, thenJoin, sim.Callback{Kind: sim.CallbackLost, Partitions: lost.Partitions()})
		}
		return false
	}
	// ConsumerCoordinator.onJoinPrepare auto-commits everything consumed
	// before it revokes anything: under cooperative, what the member goes
	// on processing during the rebalance is not committed by the
	// revocation after SyncGroup. That commit is one OffsetCommit: made
	// by the simulator before the revocation when there is one
	// (Callback.Commit), else at once. With nothing to revoke the commit
	// is asynchronous (maybeAutoCommitOffsetsAsync), and poll()'s zero
	// join timer leaves onJoinPrepare waiting for its answer: the
	// JoinGroup goes out in the first poll() after it (CommitAnswered).
	// A revocation here (eager) waits for its commit in the callback and
	// joins when the callback is done, in the same poll(); Kafka revokes
	// in the poll() after the answer too, which is not modelled.
	revoke := c.strategy.OnJoinPrepare(c.owned, c.subscription)
	if revoke.Size() == 0 {
		out.CommitOffsets = true
		if c.cfg.EnableAutoCommit {
			c.prepareCommit = prepareCommitWaiting
		}
		return false
	}
	c.owned = c.owned.Minus(revoke)
	return c.callbacks(out, thenJoin, sim.Callback{Kind: sim.CallbackRevoked, Partitions: revoke.Partitions(), Commit: true})
}

// callbacks asks the application thread to run cbs and continues with then
// once they are done. It reports whether anything was asked.
func (c *Client) callbacks(out *sim.Effects, then afterCallbacks, cbs ...sim.Callback) bool {
	n := 0
	for _, cb := range cbs {
		if len(cb.Partitions) == 0 {
			continue
		}
		c.nextCallbackT++
		cb.Token = c.nextCallbackT
		out.Callbacks = append(out.Callbacks, cb)
		n++
	}
	if n == 0 {
		return false
	}
	c.pendingCbs += n
	c.then = then
	return true
}

// CallbackDone continues after the last outstanding callback.
func (c *Client) CallbackDone(env sim.ClientEnv, cb sim.Callback, out *sim.Effects) {
	c.pendingCbs--
	if c.pendingCbs > 0 {
		return
	}
	then := c.then
	c.then = thenNothing
	c.continueWith(env, then, out)
}

// continueWith does what follows the callbacks.
func (c *Client) continueWith(env sim.ClientEnv, then afterCallbacks, out *sim.Effects) {
	switch then {
	case thenJoin:
		c.sendJoinGroup(env, out)
	case thenRejoinIfNeeded:
		if c.rejoinNeeded {
			out.WantPoll = true
		}
	case thenLeave:
		c.leave(out)
	}
}

// joinGroup is a JoinGroup with room for one protocol, which is what most
// members list, so that the request and its list are made together.
type joinGroup struct {
	req JoinGroupRequest
	one [1]ProtocolMetadata
}

func (c *Client) joinRequest() *JoinGroupRequest {
	made := &joinGroup{req: JoinGroupRequest{ClientID: c.cfg.ClientID, MemberID: c.memberID, GroupInstanceID: c.cfg.GroupInstanceID,
		SessionTimeout: c.cfg.SessionTimeout, RebalanceTimeout: c.cfg.MaxPollInterval}}
	req := &made.req
	switch n := len(c.assignors); {
	case n == len(made.one):
		req.Protocols = made.one[:0]
	case n > len(made.one):
		req.Protocols = make([]ProtocolMetadata, 0, n)
	}
	for _, a := range c.assignors {
		sub := Subscription{Topics: c.subscription, Owned: c.owned, Generation: c.generation}
		if a.Name() == "sticky" {
			// The EAGER StickyAssignor cannot rely on ownedPartitions (an
			// eager member has revoked everything by now); it encodes its
			// last assignment and generation in its userData instead
			// (StickyAssignor.subscriptionUserData).
			sub.Owned, sub.Generation = c.lastAssigned, c.lastGeneration
		}
		req.Protocols = append(req.Protocols, ProtocolMetadata{Name: a.Name(), Metadata: sub})
	}
	return req
}

func (c *Client) sendJoinGroup(env sim.ClientEnv, out *sim.Effects) {
	if c.closing || c.joinInFlight || c.syncInFlight {
		return
	}
	c.setState(preparingRebalance, out)
	c.heartbeatOn = false
	c.joinInFlight = true
	out.Request(sim.AppThread, c.joinRequest())
	// The JoinGroup request timeout covers the whole join phase.
	out.SetClientTimer(sim.TimerID{Kind: timerJoinTimeout}, env.Now+max(c.cfg.RequestTimeout, c.cfg.MaxPollInterval+5*time.Second), sim.AppThread)
}

func (c *Client) setState(s memberState, out *sim.Effects) {
	if c.state != s {
		c.state = s
		out.Note(sim.Note{Kind: sim.NoteClientState, Process: c.self.Process, MemberID: c.memberID, Detail: s.String()})
	}
}

// Receive handles the coordinator's responses.
func (c *Client) Receive(env sim.ClientEnv, msg sim.Message, out *sim.Effects) {
	switch r := msg.(type) {
	case *JoinGroupResponse:
		c.onJoinGroupResponse(env, *r, out)
	case *SyncGroupResponse:
		c.onSyncGroupResponse(env, *r, out)
	case *HeartbeatResponse:
		c.onHeartbeatResponse(env, *r, out)
	case *LeaveGroupResponse:
	default:
		panic(fmt.Sprintf("classic client: unexpected message %T", msg))
	}
}

func (c *Client) onJoinGroupResponse(env sim.ClientEnv, r JoinGroupResponse, out *sim.Effects) {
	if !c.joinInFlight {
		return
	}
	c.joinInFlight = false
	out.CancelTimer(sim.TimerID{Kind: timerJoinTimeout})
	switch r.Error {
	case None:
		c.memberID, c.generation, c.protocolName = r.MemberID, r.Generation, r.ProtocolName
		c.setState(completingRebalance, out)
		c.heartbeatOn = true
		out.SetClientTimer(sim.TimerID{Kind: timerHeartbeat}, env.Now+c.cfg.HeartbeatInterval, sim.BackgroundThread)
		sync := &SyncGroupRequest{MemberID: c.memberID, GroupInstanceID: c.cfg.GroupInstanceID, Generation: c.generation}
		if r.Leader != c.memberID {
			// Only the leader watches the metadata for new partitions: a
			// member that is no longer leader forgets what it last
			// assigned (ConsumerCoordinator.onJoinComplete clears
			// assignmentSnapshot when !isLeader), or it would rejoin at
			// every metadata refresh for good.
			c.assignedMetadata = nil
		}
		if r.Leader == c.memberID && !r.SkipAssignment {
			assignments, err := c.performAssignment(r)
			if err != nil {
				c.fail(env, err.Error(), out)
				return
			}
			sync.Assignments = assignments
		}
		c.syncInFlight = true
		out.Request(sim.AppThread, sync)
		// SyncGroup has the default request timeout (request.timeout.ms,
		// AbstractCoordinator.sendSyncGroupRequest): a lost response
		// fails the rebalance then, and the member rejoins.
		out.SetClientTimer(sim.TimerID{Kind: timerSyncTimeout}, env.Now+c.cfg.RequestTimeout, sim.AppThread)
	case MemberIDRequired:
		c.memberID = r.MemberID
		c.sendJoinGroup(env, out)
	case InconsistentGroupProtocol, GroupMaxSizeReached, InvalidSessionTimeout:
		// Kafka throws these from poll(); an application that keeps
		// polling keeps failing the same way.
		out.Note(sim.Note{Kind: sim.NoteJoinFailure, Process: c.self.Process, Detail: fmt.Sprintf("JoinGroup failed with %s: assignors %v", r.Error, names(c.assignors))})
		c.retry(env, string(r.Error), out)
	default:
		c.onResponseError(env, r.Error, out)
	}
}

// onResponseError handles the errors JoinGroup and SyncGroup responses
// share: an unknown member or a stale generation resets the generation and
// rejoins after a backoff; a fenced static instance is fatal, as Kafka's
// FencedInstanceIdException is; anything else is retried.
func (c *Client) onResponseError(env sim.ClientEnv, code ErrorCode, out *sim.Effects) {
	switch code {
	case UnknownMemberID, IllegalGeneration:
		c.resetGeneration(code == UnknownMemberID)
		c.retry(env, string(code), out)
	case FencedInstanceID:
		c.fatalError(string(code), out)
	default:
		c.retry(env, string(code), out)
	}
}

// performAssignment is the leader's job: run the selected assignor over
// every member's subscription.
func (c *Client) performAssignment(r JoinGroupResponse) (map[string]kafka.Assignment, error) {
	var chosen assignor.Assignor
	for _, a := range c.assignors {
		if a.Name() == r.ProtocolName {
			chosen = a
		}
	}
	if chosen == nil {
		return nil, fmt.Errorf("leader has no assignor %q", r.ProtocolName)
	}
	in := assignor.Input{Members: make([]assignor.Subscription, 0, len(r.Members)), Scratch: &c.assignScratch}
	subscribed := map[string]bool{}
	// Members mostly subscribe alike: a list the same as the one before
	// adds no topic.
	var last []string
	for _, m := range r.Members {
		if !slices.Equal(m.Metadata.Topics, last) {
			for _, t := range m.Metadata.Topics {
				subscribed[t] = true
			}
			last = m.Metadata.Topics
		}
		in.Members = append(in.Members, assignor.Subscription{MemberID: m.MemberID, InstanceID: m.GroupInstanceID,
			Topics: m.Metadata.Topics, Owned: m.Metadata.Owned, Generation: m.Metadata.Generation, HasGeneration: true})
	}
	c.assignedMetadata = map[string]int32{}
	for _, t := range c.metadata {
		if subscribed[t.Name] {
			in.Topics = append(in.Topics, t)
			c.assignedMetadata[t.Name] = t.Partitions
		}
	}
	res := chosen.Assign(in)
	return res.Assignment, nil
}

func (c *Client) onSyncGroupResponse(env sim.ClientEnv, r SyncGroupResponse, out *sim.Effects) {
	if !c.syncInFlight {
		return
	}
	c.syncInFlight = false
	out.CancelTimer(sim.TimerID{Kind: timerSyncTimeout})
	switch {
	case r.Error == None && c.generation < 0:
		// A heartbeat reset the generation while the SyncGroup was
		// pending: the assignment is stale, and joinGroupIfNeeded rejoins
		// at once (hasGenerationReset, resetStateAndRejoin).
		out.Note(sim.Note{Kind: sim.NoteRebalanceEnd, Process: c.self.Process, Failed: true, Detail: "generation reset during SyncGroup"})
		c.Poll(env, out)
	case r.Error == None:
		c.setState(stable, out)
		c.onJoinComplete(env, r.Assignment, out)
	case r.Error == RebalanceInProgress:
		// Rejoin at once; onJoinPrepare has already run for this rebalance.
		out.Note(sim.Note{Kind: sim.NoteRebalanceEnd, Process: c.self.Process, Failed: true})
		c.sendJoinGroup(env, out)
	default:
		c.onResponseError(env, r.Error, out)
	}
}

// onJoinComplete installs the new assignment: revoke what moved away,
// assign what is new, and rejoin if the strategy says so.
func (c *Client) onJoinComplete(env sim.ClientEnv, assigned kafka.Assignment, out *sim.Effects) {
	if assigned == nil {
		assigned = kafka.Assignment{}
	}
	revoke, add, rejoin := c.strategy.OnJoinComplete(c.owned, assigned)
	c.owned = assigned
	c.lastAssigned, c.lastGeneration = assigned, c.generation
	c.rejoinNeeded, c.joinPrepared, c.fenced, c.backoff = rejoin, false, false, 0
	out.Note(sim.Note{Kind: sim.NoteRebalanceEnd, Process: c.self.Process, MemberID: c.memberID})
	c.callbacks(out, thenRejoinIfNeeded,
		// onJoinComplete revokes without a commit of its own (Commit
		// false); only a listener that commits does.
		sim.Callback{Kind: sim.CallbackRevoked, Partitions: revoke.Partitions()},
		sim.Callback{Kind: sim.CallbackAssigned, Partitions: add.Partitions()})
	if c.pendingCbs == 0 && c.rejoinNeeded {
		out.WantPoll = true
	}
}

func (c *Client) resetGeneration(clearMemberID bool) {
	c.generation, c.protocolName = -1, ""
	if clearMemberID {
		c.memberID = ""
	}
	c.rejoinNeeded, c.joinPrepared, c.heartbeatOn = true, false, false
	c.prepareCommit = prepareCommitNone
}

// retry schedules another JoinGroup attempt after an exponential backoff
// (retry.backoff.ms up to retry.backoff.max.ms, 1s).
func (c *Client) retry(env sim.ClientEnv, why string, out *sim.Effects) {
	out.Note(sim.Note{Kind: sim.NoteRebalanceEnd, Process: c.self.Process, Failed: true, Detail: why})
	c.setState(unjoined, out)
	c.rejoinNeeded = true
	c.backoff = min(max(2*c.backoff, c.cfg.RetryBackoff), time.Second)
	c.backoffUntil = env.Now + c.backoff
	out.SetClientTimer(sim.TimerID{Kind: timerRetry}, c.backoffUntil, sim.AppThread)
}

func (c *Client) fail(env sim.ClientEnv, why string, out *sim.Effects) {
	out.Note(sim.Note{Kind: sim.NoteJoinFailure, Process: c.self.Process, Detail: why})
	c.retry(env, why, out)
}

func (c *Client) fatalError(why string, out *sim.Effects) {
	c.fatal = why
	c.heartbeatOn = false
	out.Note(sim.Note{Kind: sim.NoteJoinFailure, Process: c.self.Process, Detail: "fatal: " + why, Failed: true})
}

// Timer handles the client's timers.
func (c *Client) Timer(env sim.ClientEnv, id sim.TimerID, out *sim.Effects) {
	switch id.Kind {
	case timerHeartbeat:
		c.onHeartbeatTick(env, out)
	case timerHeartbeatTimeout:
		c.hbInFlight = false
	case timerJoinTimeout:
		if c.joinInFlight {
			c.joinInFlight = false
			c.retry(env, "JoinGroup timed out", out)
		}
	case timerSyncTimeout:
		if c.syncInFlight {
			c.syncInFlight = false
			c.retry(env, "SyncGroup timed out", out)
		}
	case timerRetry:
		c.Poll(env, out)
	case timerMetadata:
		c.onMetadataRefresh(env, out)
	default:
		panic(fmt.Sprintf("classic client: unknown timer %q", id))
	}
}

// onHeartbeatTick is one pass of the heartbeat thread: first the poll
// timer (max.poll.interval.ms since the last poll makes a member leave),
// then the heartbeat itself.
func (c *Client) onHeartbeatTick(env sim.ClientEnv, out *sim.Effects) {
	if c.state != unjoined && c.memberID != "" && env.Now-env.LastPoll > c.cfg.MaxPollInterval {
		if c.dynamic() {
			out.Request(sim.BackgroundThread, &LeaveGroupRequest{MemberID: c.memberID})
		}
		out.Note(sim.Note{Kind: sim.NoteFenced, Process: c.self.Process, MemberID: c.memberID, Detail: "poll timeout: max.poll.interval.ms exceeded"})
		c.resetGeneration(true)
		c.fenced = true
		c.setState(unjoined, out)
		out.WantPoll = true
		return
	}
	if !c.heartbeatOn {
		return
	}
	out.SetClientTimer(sim.TimerID{Kind: timerHeartbeat}, env.Now+c.cfg.HeartbeatInterval, sim.BackgroundThread)
	if c.hbInFlight {
		return
	}
	c.hbInFlight = true
	out.Request(sim.BackgroundThread, c.heartbeatRequest())
	out.SetClientTimer(sim.TimerID{Kind: timerHeartbeatTimeout}, env.Now+c.cfg.RequestTimeout, sim.BackgroundThread)
}

func (c *Client) heartbeatRequest() *HeartbeatRequest {
	req := HeartbeatRequest{MemberID: c.memberID, GroupInstanceID: c.cfg.GroupInstanceID, Generation: c.generation}
	if c.heartbeat == nil || req != c.heartbeatFor {
		sent := req
		c.heartbeat, c.heartbeatFor = &sent, req
	}
	return c.heartbeat
}

func (c *Client) onHeartbeatResponse(env sim.ClientEnv, r HeartbeatResponse, out *sim.Effects) {
	c.hbInFlight = false
	out.CancelTimer(sim.TimerID{Kind: timerHeartbeatTimeout})
	switch r.Error {
	case IllegalGeneration, UnknownMemberID, FencedInstanceID:
		// HeartbeatResponseHandler: an error about a generation the
		// member has since left behind (a JoinGroup completed while the
		// heartbeat was in flight) is ignored (generationUnchanged).
		if c.heartbeat != nil && (c.heartbeatFor.Generation != c.generation || c.heartbeatFor.MemberID != c.memberID) {
			return
		}
	}
	switch r.Error {
	case None:
	case RebalanceInProgress:
		if c.state == stable {
			c.rejoinNeeded = true
			out.WantPoll = true
		}
	case IllegalGeneration, UnknownMemberID:
		c.fencedBy(r.Error, out)
	case FencedInstanceID:
		c.fatalError(string(r.Error), out)
	}
}

// fencedBy resets the generation of a member in a generation that a
// response says is gone (AbstractCoordinator.resetStateOnResponseError:
// the member id is kept on ILLEGAL_GENERATION, which leaves it possibly
// valid) and rejoins, losing its partitions in the next onJoinPrepare.
// A member already between JoinGroup and its response learns the same
// from that response.
func (c *Client) fencedBy(code ErrorCode, out *sim.Effects) {
	if c.state != stable && c.state != completingRebalance {
		return
	}
	out.Note(sim.Note{Kind: sim.NoteFenced, Process: c.self.Process, MemberID: c.memberID, Detail: string(code)})
	c.resetGeneration(code == UnknownMemberID)
	c.fenced = true
	c.setState(unjoined, out)
	out.WantPoll = true
}

// OffsetCommitRejected is ConsumerCoordinator.OffsetCommitResponseHandler
// .handle on the errors the coordinator answers a commit with:
// REBALANCE_IN_PROGRESS asks for a rejoin and keeps the generation
// (requestRejoin); UNKNOWN_MEMBER_ID and ILLEGAL_GENERATION reset the
// generation and rejoin, as a heartbeat's would. The request-level error
// is the same for every partition, so the first one is read.
//
// An answer about a generation the member has since left is ignored.
// Kafka ignores it while the member prepares a rebalance (then only the
// committer gets a RebalanceInProgressException), and cannot get one
// later: its commit in onJoinPrepare is synchronous, answered before the
// JoinGroup goes out, and one connection answers in order. Here that
// commit goes out just before the JoinGroup, and with simultaneous events
// shuffled the two may reach the coordinator in either order, so the
// answer can come after the new generation's.
func (c *Client) OffsetCommitRejected(env sim.ClientEnv, sent sim.OffsetCommit, r sim.OffsetCommitResponse, out *sim.Effects) {
	if c.closing || c.fatal != "" || len(r.Rejected) == 0 {
		return
	}
	if sent.GenerationIDOrMemberEpoch != c.generation || sent.MemberID != c.memberID {
		return
	}
	switch code := ErrorCode(r.Rejected[0].Error); code {
	case RebalanceInProgress:
		c.rejoinNeeded = true
		out.WantPoll = true
	case UnknownMemberID, IllegalGeneration:
		c.fencedBy(code, out)
	}
}

// onMetadataRefresh re-reads the cluster metadata (metadata.max.age.ms).
// Only the leader reacts to new partitions, by rejoining
// (ConsumerCoordinator.rejoinNeededOrPending).
func (c *Client) onMetadataRefresh(env sim.ClientEnv, out *sim.Effects) {
	c.metadata = env.Metadata
	out.SetClientTimer(sim.TimerID{Kind: timerMetadata}, env.Now+c.cfg.MetadataMaxAge, sim.BackgroundThread)
	if c.assignedMetadata == nil || c.state != stable {
		return
	}
	for _, t := range c.metadata {
		if n, ok := c.assignedMetadata[t.Name]; ok && n != t.Partitions {
			c.rejoinNeeded = true
			out.WantPoll = true
			return
		}
	}
}

// Close is close(): revoke everything, then leave — except static
// members, which never send LeaveGroup. ConsumerCoordinator.onLeavePrepare
// calls the partitions lost, not revoked, when the generation is gone or
// a rebalance is in progress (rebalanceInProgress: a JoinGroup or
// SyncGroup outstanding); close()'s auto-commit before it
// (maybeAutoCommitOffsetsSync) fails then too (sendOffsetCommitRequest
// has no generationIfStable), so nothing is committed: a cooperative
// member closing mid-rebalance hands its partitions over uncommitted.
func (c *Client) Close(env sim.ClientEnv, out *sim.Effects) {
	c.closing = true
	kind := sim.CallbackRevoked
	if c.generation < 0 || c.state == preparingRebalance || c.state == completingRebalance {
		kind = sim.CallbackLost
	}
	owned := c.owned
	c.owned = kafka.Assignment{}
	if !c.callbacks(out, thenLeave, sim.Callback{Kind: kind, Partitions: owned.Partitions(), Commit: true}) {
		c.leave(out)
	}
}

// leave ends close(): a member that has a member id and is not unjoined
// sends LeaveGroup if its close option says so, by default a dynamic
// member only (AbstractCoordinator.maybeLeaveGroup checks
// generation.hasMemberId(), not the generation: a new member that was
// given its id by MEMBER_ID_REQUIRED and is waiting on its JoinGroup
// leaves too; KIP-1092 lets a static member leave, naming its instance
// id).
func (c *Client) leave(out *sim.Effects) {
	if c.cfg.LeavesOnClose() && c.memberID != "" && c.state != unjoined {
		out.Request(sim.BackgroundThread, &LeaveGroupRequest{MemberID: c.memberID, GroupInstanceID: c.cfg.GroupInstanceID})
	}
	c.heartbeatOn = false
	c.closed = true
}

// Closed reports whether Close finished.
func (c *Client) Closed() bool { return c.closed }

// Subscribe changes the subscription; the next poll rejoins.
func (c *Client) Subscribe(env sim.ClientEnv, topics []string, out *sim.Effects) {
	c.subscription = slices.Clone(topics)
	c.rejoinNeeded = true
	out.WantPoll = true
}

// Settled reports a stable member with nothing pending.
func (c *Client) Settled() bool {
	return c.state == stable && !c.rejoinNeeded && !c.joinInFlight && !c.syncInFlight && c.pendingCbs == 0 && c.fatal == "" && !c.closing
}

// Rebalancing reports a rebalance in progress on this member.
func (c *Client) Rebalancing() bool {
	return c.fatal == "" && (c.rejoinNeeded || c.joinInFlight || c.syncInFlight || c.state == preparingRebalance || c.state == completingRebalance)
}

// CanCommit reports whether an offset commit would succeed: only in a
// stable generation (ConsumerCoordinator.sendOffsetCommitRequest,
// generationIfStable), so the periodic auto-commit fails mid-rebalance.
func (c *Client) CanCommit() bool { return c.state == stable && c.generation >= 0 }

// Fenced reports a member that lost its membership and has not rejoined.
func (c *Client) Fenced() bool { return c.fenced || c.fatal != "" }

// State names the client state and, while callbacks are outstanding, how
// many and what follows them ("PREPARING_REBALANCE, 1 callback, then join").
func (c *Client) State() string {
	switch c.pendingCbs {
	case 0:
		return c.state.String()
	case 1:
		return fmt.Sprintf("%s, 1 callback, then %s", c.state, c.then)
	}
	return fmt.Sprintf("%s, %d callbacks, then %s", c.state, c.pendingCbs, c.then)
}

// MemberID is the member id the coordinator last gave the client.
func (c *Client) MemberID() string { return c.memberID }

// Generation is the generation the client is in, -1 if none.
func (c *Client) Generation() int32 { return c.generation }

// Owned returns the partitions the application holds.
func (c *Client) Owned() kafka.Assignment { return c.owned }

// OffsetCommit names the member in an OffsetCommit: its member id, group
// instance id and generation (ConsumerCoordinator.sendOffsetCommitRequest).
// Kafka's client checks that the generation is stable first
// (generationIfStable); the simulator asks CanCommit before a periodic
// auto-commit, and the commits of onJoinPrepare and of a revocation are
// made while it is.
func (c *Client) OffsetCommit(tps []kafka.TopicPartition) sim.OffsetCommit {
	return sim.OffsetCommit{MemberID: c.memberID, GroupInstanceID: c.cfg.GroupInstanceID, GenerationIDOrMemberEpoch: c.generation, Partitions: tps}
}
