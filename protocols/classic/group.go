package classic

import (
	"fmt"
	"slices"
	"time"

	"github.com/rebalsim/rebalsim/internal/javaorder"
	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/internal/slab"
	"github.com/rebalsim/rebalsim/sim"
)

// GroupState is a classic group's state (ClassicGroupState).
type GroupState int

const (
	Empty GroupState = iota
	PreparingRebalance
	CompletingRebalance
	Stable
	Dead
)

func (s GroupState) String() string {
	return [...]string{"EMPTY", "PREPARING_REBALANCE", "COMPLETING_REBALANCE", "STABLE", "DEAD"}[s]
}

// newMemberJoinTimeout is CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS: a new
// member waiting in its first join phase is expired after this long
// instead of after its session timeout.
const newMemberJoinTimeout = 5 * time.Minute

// The group's timers.
var (
	// timerJoin ends the join phase: the rebalance timeout, or a step of
	// the initial rebalance delay.
	timerJoin = sim.NewTimerKind("join")
	// timerSync removes the members that have not sent SyncGroup within
	// the rebalance timeout.
	timerSync = sim.NewTimerKind("sync")
	// timerSession, one per member, expires a member that stopped
	// heartbeating.
	timerSession = sim.NewTimerKind("session")
	// timerPending, one per id handed out with MEMBER_ID_REQUIRED, forgets
	// an id whose member did not come back with it.
	timerPending = sim.NewTimerKind("pending")
)

// Member is the coordinator's record of one classic member.
type Member struct {
	// What a heartbeat reads comes first, side by side.
	ID             string
	InstanceID     string
	SessionTimeout time.Duration

	ClientID         string
	Endpoint         sim.Endpoint
	RebalanceTimeout time.Duration
	Protocols        []ProtocolMetadata
	Assignment       kafka.Assignment
	// AwaitingJoin and AwaitingSync mark a parked JoinGroup / SyncGroup.
	AwaitingJoin bool
	AwaitingSync bool
	// IsNew is set until the member's first join phase completes.
	IsNew bool
	// pendingSync is set while the group waits for the member's SyncGroup
	// of the current generation (ClassicGroup.pendingSyncMembers).
	pendingSync bool
	// hash is ID's Java hash code, which places the member in the group's
	// member map (see Group.kafkaOrder).
	hash uint32
	// handle is ID's handle (sim.MemberHandles), which names the member's
	// timers.
	handle sim.MemberHandle
}

// setID gives the member its id.
func (m *Member) setID(id string) {
	m.ID, m.hash = id, javaorder.StringHash(id)
}

// sessionTimer names the member's session timer.
func (m *Member) sessionTimer() sim.TimerID {
	return sim.TimerID{Kind: timerSession, Handle: m.handle, Member: m.ID}
}

func (m *Member) subscription(protocol string) Subscription {
	for _, p := range m.Protocols {
		if p.Name == protocol {
			return p.Metadata
		}
	}
	return Subscription{Generation: -1}
}

// Group is the classic group coordinator for one group: the join and sync
// phases, heartbeats, session expiry and static membership of reference §2,
// as GroupMetadataManager's classicGroup* methods run them. Each exported
// handler is one request or timer; each transition lives in one method
// named as Kafka names it.
type Group struct {
	cfg        sim.GroupConfig
	state      GroupState
	generation int32
	protocol   string
	leader     string
	// members in the order they were put in Kafka's member map
	// (ClassicGroup.members, a HashMap keyed by member id), which iterates
	// them in kafkaOrder: the leader's member list, leader succession and
	// the order of the coordinator's responses follow it.
	members []*Member
	// order caches kafkaOrder (nil when members changed); capacity is the
	// member map's table size, which grows with the group and never
	// shrinks.
	order    []*Member
	capacity int

	byID map[string]*Member
	// handles numbers the member ids for their timers; the KIP-848
	// coordinator shares its own with the group (ShareHandles).
	handles *sim.MemberHandles
	static  map[string]*Member // by group.instance.id
	pending map[string]bool    // ids handed out with MEMBER_ID_REQUIRED
	// pendingSync counts the members that have not sent SyncGroup for
	// the current generation (Member.pendingSync).
	pendingSync int
	// supporters counts, per assignor name, the members listing it.
	supporters protocolCounts
	// joinScan is where maybeCompleteJoin starts looking for a member that
	// has not rejoined: where it found one last time.
	joinScan int
	// The initial-rebalance delay (KIP-134) state.
	initialJoin      bool
	newMemberAdded   bool
	initialRemaining time.Duration
	nextID           int
	// heartbeatOK and heartbeatRebalancing are the common heartbeat
	// answers, made once (see heartbeatResponse).
	heartbeatOK, heartbeatRebalancing *HeartbeatResponse
	// joinResponses and syncResponses make the group's JoinGroup and
	// SyncGroup responses (package slab).
	joinResponses slab.Slab[JoinGroupResponse]
	syncResponses slab.Slab[SyncGroupResponse]
}

// NewGroup returns an empty classic group.
func NewGroup(cfg sim.GroupConfig) *Group {
	return &Group{cfg: cfg, byID: map[string]*Member{}, handles: &sim.MemberHandles{}, static: map[string]*Member{}, pending: map[string]bool{},
		heartbeatOK: &HeartbeatResponse{Error: None}, heartbeatRebalancing: &HeartbeatResponse{Error: RebalanceInProgress}}
}

// State names the group state.
func (g *Group) State() string { return g.state.String() }

// GroupState returns the group state.
func (g *Group) GroupState() GroupState { return g.state }

// Stable reports whether no rebalance is in progress.
func (g *Group) Stable() bool {
	return (g.state == Stable && g.pendingSync == 0) || (g.state == Empty && len(g.members) == 0)
}

// Generation is the current generation id.
func (g *Group) Generation() int32 { return g.generation }

// Members lists the members in Kafka's order (ClassicGroup.allMembers).
func (g *Group) Members() []*Member { return g.kafkaOrder() }

// kafkaOrder is the iteration order of ClassicGroup.members: a
// java.util.HashMap<String, ClassicGroupMember>, so bucket by bucket of the
// members' id hash codes, each bucket in insertion order (javaorder).
func (g *Group) kafkaOrder() []*Member {
	if g.order == nil {
		g.order = make([]*Member, 0, len(g.members))
		for _, i := range javaorder.HashMapOrder(len(g.members), g.capacity, func(i int) uint32 { return g.members[i].hash }) {
			g.order = append(g.order, g.members[i])
		}
	}
	return g.order
}

// putMember puts m last in the member map (ClassicGroup.add,
// replaceStaticMember's put).
func (g *Group) putMember(m *Member) {
	g.members = append(g.members, m)
	g.capacity = max(g.capacity, javaorder.HashMapCapacity(len(g.members)))
	g.byID[m.ID] = m
	m.handle = g.handles.Of(m.ID)
	g.order = nil
}

// dropMember takes m out of the member map.
func (g *Group) dropMember(m *Member) {
	g.members = slices.DeleteFunc(g.members, func(o *Member) bool { return o == m })
	delete(g.byID, m.ID)
	g.order = nil
}

// ProtocolName is the selected assignor of the current generation.
func (g *Group) ProtocolName() string { return g.protocol }

// Receive dispatches a classic request.
func (g *Group) Receive(env sim.CoordinatorEnv, from sim.Endpoint, msg sim.Message, out *sim.Effects) {
	switch req := msg.(type) {
	case *JoinGroupRequest:
		g.onJoinGroup(env, from, *req, out)
	case *SyncGroupRequest:
		g.onSyncGroup(env, from, *req, out)
	case *HeartbeatRequest:
		out.Send(from, g.heartbeatResponse(g.onHeartbeat(env, *req, out)))
	case *LeaveGroupRequest:
		out.Send(from, &LeaveGroupResponse{Error: g.onLeaveGroup(env, *req, out)})
	case sim.OffsetCommit:
		out.Send(from, offsetCommitResponse(req, g.ValidateOffsetCommit(req)))
	default:
		panic(fmt.Sprintf("classic group: unexpected message %T", msg))
	}
}

// MetadataChanged is a no-op: classic clients notice new partitions
// themselves (the leader, at its next metadata refresh).
func (g *Group) MetadataChanged(sim.CoordinatorEnv, *sim.Effects) {}

// Timer handles the group's timers.
func (g *Group) Timer(env sim.CoordinatorEnv, id sim.TimerID, out *sim.Effects) {
	switch id.Kind {
	case timerJoin:
		g.onJoinTimeout(env, out)
	case timerSync:
		g.expirePendingSync(env, out)
	case timerSession:
		g.expireMemberHeartbeat(env, id.Member, out)
	case timerPending:
		delete(g.pending, id.Member)
		g.maybeCompleteJoin(env, out)
	default:
		panic(fmt.Sprintf("classic group: unknown timer %q", id))
	}
}

// CancelTimers cancels every timer the group may have armed: what a
// coordinator does when it replaces this group by a group of another type.
func (g *Group) CancelTimers(out *sim.Effects) {
	for _, m := range g.members {
		out.CancelTimer(m.sessionTimer())
	}
	for _, id := range g.PendingMemberIDs() {
		out.CancelTimer(g.pendingTimer(id))
	}
	out.CancelTimer(sim.TimerID{Kind: timerJoin})
	out.CancelTimer(sim.TimerID{Kind: timerSync})
}

// pendingTimer names the timer of an id handed out with MEMBER_ID_REQUIRED.
func (g *Group) pendingTimer(id string) sim.TimerID {
	return sim.TimerID{Kind: timerPending, Handle: g.handles.Of(id), Member: id}
}

func (g *Group) transition(to GroupState, out *sim.Effects) {
	if g.state == to {
		return
	}
	g.state = to
	out.Note(sim.Note{Kind: sim.NoteGroupState, Detail: to.String(), Value: int64(g.generation)})
}

// mintID is ClassicGroup.generateMemberId: the group.instance.id of a
// static member, else the client id, then "-" and a random UUID. A group
// driven without an id source (transcript tests) numbers its ids instead.
func (g *Group) mintID(env sim.CoordinatorEnv, from sim.Endpoint, req JoinGroupRequest) string {
	prefix := req.ClientID
	if req.GroupInstanceID != "" && env.MemberIDs != nil {
		prefix = req.GroupInstanceID
	}
	if env.MemberIDs == nil {
		g.nextID++
		return fmt.Sprintf("%s-%d", prefix, g.nextID)
	}
	return env.MemberIDs.Mint(from, func(u kafka.Uuid) string { return prefix + "-" + u.Canonical() })
}

// rebalanceTimeout is the group's: the largest of its members'.
func (g *Group) rebalanceTimeout() time.Duration {
	var t time.Duration
	for _, m := range g.members {
		t = max(t, m.RebalanceTimeout)
	}
	return t
}

func (g *Group) scheduleSession(env sim.CoordinatorEnv, m *Member, d time.Duration, out *sim.Effects) {
	out.SetTimer(m.sessionTimer(), env.Now+d)
}

// heartbeatResponse answers a heartbeat. The two common answers are made
// once per group: a heartbeat is the most frequent message.
func (g *Group) heartbeatResponse(code ErrorCode) *HeartbeatResponse {
	switch code {
	case None:
		return g.heartbeatOK
	case RebalanceInProgress:
		return g.heartbeatRebalancing
	}
	return &HeartbeatResponse{Error: code}
}

// --- JoinGroup ---

func (g *Group) onJoinGroup(env sim.CoordinatorEnv, from sim.Endpoint, req JoinGroupRequest, out *sim.Effects) {
	reply := func(code ErrorCode) {
		out.Send(from, &JoinGroupResponse{Error: code, MemberID: req.MemberID, Generation: -1})
	}
	if g.state == Dead {
		reply(CoordinatorNotAvailable)
		return
	}
	if req.SessionTimeout < g.cfg.MinSessionTimeout || req.SessionTimeout > g.cfg.MaxSessionTimeout {
		reply(InvalidSessionTimeout)
		return
	}
	if !g.supportsProtocols(req.Protocols, req.MemberID) {
		reply(InconsistentGroupProtocol)
		return
	}
	if req.MemberID == "" {
		g.joinUnknownMember(env, from, req, out)
		return
	}
	if g.pending[req.MemberID] {
		delete(g.pending, req.MemberID)
		out.CancelTimer(g.pendingTimer(req.MemberID))
		g.addMemberThenRebalanceOrCompleteJoin(env, from, req.MemberID, req, out)
		return
	}
	m, code := g.validateExistingMember(req.MemberID, req.GroupInstanceID)
	if code != None {
		reply(code)
		return
	}
	switch g.state {
	case PreparingRebalance:
		g.updateMemberThenRebalanceOrCompleteJoin(env, from, m, req, out)
	case CompletingRebalance:
		if protocolsMatch(m.Protocols, req.Protocols) {
			// A duplicate join: answer with the current generation.
			m.Endpoint = from
			out.Send(from, g.joinResponse(m, false))
		} else {
			g.updateMemberThenRebalanceOrCompleteJoin(env, from, m, req, out)
		}
	case Stable:
		if m.ID == g.leader || !protocolsMatch(m.Protocols, req.Protocols) {
			// The leader's JoinGroup always rebalances, so that it can react
			// to metadata changes.
			g.updateMemberThenRebalanceOrCompleteJoin(env, from, m, req, out)
		} else {
			m.Endpoint = from
			out.Send(from, g.joinResponse(m, false))
		}
	default:
		reply(UnknownMemberID)
	}
}

func (g *Group) joinUnknownMember(env sim.CoordinatorEnv, from sim.Endpoint, req JoinGroupRequest, out *sim.Effects) {
	if g.cfg.MaxSize > 0 && len(g.members) >= g.cfg.MaxSize {
		out.Send(from, &JoinGroupResponse{Error: GroupMaxSizeReached, Generation: -1})
		return
	}
	if req.GroupInstanceID != "" {
		if old := g.static[req.GroupInstanceID]; old != nil {
			g.updateStaticMemberThenRebalanceOrCompleteJoin(env, from, old, req, out)
			return
		}
		// A new static member joins directly, without MEMBER_ID_REQUIRED.
		g.addMemberThenRebalanceOrCompleteJoin(env, from, g.mintID(env, from, req), req, out)
		return
	}
	// KIP-394: mint an id, remember it as pending, and make the client
	// come back with it.
	id := g.mintID(env, from, req)
	g.pending[id] = true
	out.SetTimer(g.pendingTimer(id), env.Now+req.SessionTimeout)
	out.Send(from, &JoinGroupResponse{Error: MemberIDRequired, MemberID: id, Generation: -1})
}

func (g *Group) addMemberThenRebalanceOrCompleteJoin(env sim.CoordinatorEnv, from sim.Endpoint, id string, req JoinGroupRequest, out *sim.Effects) {
	m := &Member{InstanceID: req.GroupInstanceID, ClientID: req.ClientID, Endpoint: from,
		SessionTimeout: req.SessionTimeout, RebalanceTimeout: req.RebalanceTimeout,
		AwaitingJoin: true, IsNew: true}
	m.setID(id)
	g.setProtocols(m, req.Protocols)
	if g.leader == "" {
		g.leader = id
	}
	g.putMember(m)
	if m.InstanceID != "" {
		g.static[m.InstanceID] = m
	}
	out.Note(sim.Note{Kind: sim.NoteMemberAdded, Process: from.Process, MemberID: id})
	g.scheduleSession(env, m, newMemberJoinTimeout, out)
	g.newMemberAdded = true
	if g.state == PreparingRebalance {
		g.maybeCompleteJoin(env, out)
	} else {
		g.prepareRebalance(env, "new member "+id+" joined", out)
	}
}

func (g *Group) updateMemberThenRebalanceOrCompleteJoin(env sim.CoordinatorEnv, from sim.Endpoint, m *Member, req JoinGroupRequest, out *sim.Effects) {
	m.Endpoint = from
	g.setProtocols(m, req.Protocols)
	m.RebalanceTimeout = req.RebalanceTimeout
	m.SessionTimeout = req.SessionTimeout
	m.AwaitingJoin = true
	if g.state == PreparingRebalance {
		g.maybeCompleteJoin(env, out)
	} else {
		g.prepareRebalance(env, "member "+m.ID+" rejoined", out)
	}
}

// updateStaticMemberThenRebalanceOrCompleteJoin replaces a static member's
// id when it comes back with an unknown member id (KIP-345). In a stable
// group whose protocol choice is unchanged this needs no rebalance.
func (g *Group) updateStaticMemberThenRebalanceOrCompleteJoin(env sim.CoordinatorEnv, from sim.Endpoint, old *Member, req JoinGroupRequest, out *sim.Effects) {
	newID := g.mintID(env, from, req)
	if old.AwaitingJoin {
		out.Send(old.Endpoint, &JoinGroupResponse{Error: FencedInstanceID, MemberID: old.ID, Generation: -1})
	}
	if old.AwaitingSync {
		out.Send(old.Endpoint, &SyncGroupResponse{Error: FencedInstanceID})
	}
	oldProtocols := old.Protocols
	out.CancelTimer(old.sessionTimer())
	out.Note(sim.Note{Kind: sim.NoteMemberRemoved, Process: old.Endpoint.Process, MemberID: old.ID, Detail: "replaced by static member " + newID})
	g.dropMember(old)
	if g.leader == old.ID {
		g.leader = newID
	}
	// The member map drops the old id and puts the new one
	// (ClassicGroup.replaceStaticMember): the member moves to where its
	// new id places it.
	m := old
	m.setID(newID)
	m.Endpoint, m.ClientID = from, req.ClientID
	m.SessionTimeout, m.RebalanceTimeout = req.SessionTimeout, req.RebalanceTimeout
	g.setProtocols(m, req.Protocols)
	// The record keeps its pendingSync: a SyncGroup the old id owed, the
	// new one owes.
	m.AwaitingJoin, m.AwaitingSync = false, false
	g.putMember(m)
	g.static[m.InstanceID] = m
	out.Note(sim.Note{Kind: sim.NoteMemberAdded, Process: from.Process, MemberID: newID})
	g.scheduleSession(env, m, m.SessionTimeout, out)
	switch g.state {
	case Stable:
		if g.selectProtocol() == g.protocol && sameTopics(oldProtocols, req.Protocols) {
			// No rebalance: persist the new id and hand back the current
			// generation; a returning leader is told to skip the assignment
			// (KIP-814) and simply fetches its previous one.
			out.Send(from, g.joinResponse(m, m.ID == g.leader))
			return
		}
		m.AwaitingJoin = true
		g.prepareRebalance(env, "static member "+m.InstanceID+" rejoined with new metadata", out)
	case CompletingRebalance:
		m.AwaitingJoin = true
		g.prepareRebalance(env, "static member "+m.InstanceID+" rejoined during the sync phase", out)
	default:
		m.AwaitingJoin = true
		g.maybeCompleteJoin(env, out)
	}
}

// joinResponse builds member m's JoinGroup response for the current
// generation; only the leader sees the members and their subscriptions.
func (g *Group) joinResponse(m *Member, skipAssignment bool) *JoinGroupResponse {
	r := g.joinResponses.New(JoinGroupResponse{Error: None, Generation: g.generation, ProtocolName: g.protocol, Leader: g.leader, MemberID: m.ID, SkipAssignment: skipAssignment})
	if m.ID == g.leader {
		// ClassicGroup.currentClassicGroupMembers, in map order.
		r.Members = make([]JoinGroupMember, 0, len(g.members))
		for _, o := range g.kafkaOrder() {
			r.Members = append(r.Members, JoinGroupMember{MemberID: o.ID, GroupInstanceID: o.InstanceID, Metadata: o.subscription(g.protocol)})
		}
	}
	return r
}

// prepareRebalance starts a join phase (reference §2.3).
func (g *Group) prepareRebalance(env sim.CoordinatorEnv, reason string, out *sim.Effects) {
	if g.state == CompletingRebalance {
		// Parked SyncGroups are answered REBALANCE_IN_PROGRESS and the
		// pending sync is abandoned.
		for _, m := range g.kafkaOrder() {
			if m.AwaitingSync {
				m.AwaitingSync = false
				out.Send(m.Endpoint, &SyncGroupResponse{Error: RebalanceInProgress})
			}
		}
	}
	g.clearPendingSync()
	out.CancelTimer(sim.TimerID{Kind: timerSync})
	if g.state == Empty {
		// KIP-134: hold the first join phase for the initial delay, and
		// extend it while new members keep arriving.
		g.initialJoin, g.newMemberAdded = true, false
		delay := g.cfg.InitialRebalanceDelay
		g.initialRemaining = max(g.rebalanceTimeout()-delay, 0)
		out.SetTimer(sim.TimerID{Kind: timerJoin}, env.Now+delay)
	} else {
		g.initialJoin = false
		out.SetTimer(sim.TimerID{Kind: timerJoin}, env.Now+g.rebalanceTimeout())
	}
	g.transition(PreparingRebalance, out)
	out.Note(sim.Note{Kind: sim.NoteGroupState, Detail: "preparing rebalance: " + reason, Value: int64(g.generation)})
}

func (g *Group) onJoinTimeout(env sim.CoordinatorEnv, out *sim.Effects) {
	if g.state != PreparingRebalance {
		return
	}
	if g.initialJoin && g.newMemberAdded && g.initialRemaining > 0 {
		g.newMemberAdded = false
		delay := min(g.cfg.InitialRebalanceDelay, g.initialRemaining)
		g.initialRemaining = max(g.initialRemaining-delay, 0)
		out.SetTimer(sim.TimerID{Kind: timerJoin}, env.Now+delay)
		return
	}
	g.completeJoin(env, out)
}

// maybeCompleteJoin ends the join phase early once every known member has
// rejoined and no pending member is outstanding, except during the initial
// delay, which always runs its course.
func (g *Group) maybeCompleteJoin(env sim.CoordinatorEnv, out *sim.Effects) {
	if g.state != PreparingRebalance || g.initialJoin || len(g.pending) > 0 {
		return
	}
	// Kafka keeps a count of the members awaiting a join response
	// (ClassicGroup.hasAllMembersJoined); here the members are looked at
	// in turn, starting from the one that had not rejoined at the last
	// look. Each join calls this, and members rejoin roughly in the order
	// the last one left, so starting from the front would read the whole
	// group on every join of a large one. Every member is still looked at
	// before the phase completes, so where the look starts cannot change
	// the answer.
	n := len(g.members)
	for i := range n {
		at := (g.joinScan + i) % n
		if !g.members[at].AwaitingJoin {
			g.joinScan = at
			return
		}
	}
	g.completeJoin(env, out)
}

// completeJoin ends the join phase: members that did not rejoin are dropped
// (dynamic ones), a new generation starts and everyone who rejoined gets
// its JoinGroup response.
func (g *Group) completeJoin(env sim.CoordinatorEnv, out *sim.Effects) {
	out.CancelTimer(sim.TimerID{Kind: timerJoin})
	g.initialJoin = false
	for _, m := range slices.Clone(g.kafkaOrder()) {
		if !m.AwaitingJoin && m.InstanceID == "" {
			g.removeMember(m, "did not rejoin within the rebalance timeout", out)
		}
	}
	if g.leader == "" || !g.byID[g.leader].AwaitingJoin {
		// ClassicGroup.maybeElectNewJoinedLeader: the first member in map
		// order that rejoined.
		g.leader = ""
		for _, m := range g.kafkaOrder() {
			if m.AwaitingJoin {
				g.leader = m.ID
				break
			}
		}
		if g.leader == "" && len(g.members) > 0 {
			// Only static members that have not rejoined are left: wait
			// another rebalance timeout for them (or for their sessions to
			// expire) rather than start a generation nobody joined.
			out.SetTimer(sim.TimerID{Kind: timerJoin}, env.Now+g.rebalanceTimeout())
			return
		}
	}
	g.generation++
	if len(g.members) == 0 {
		g.protocol, g.leader = "", ""
		g.transition(Empty, out)
		return
	}
	g.protocol = g.selectProtocol()
	g.transition(CompletingRebalance, out)
	// A generation is counted when it starts, as the coordinator numbers
	// it ("Stabilized group ... generation", GroupMetadataManager
	// .completeClassicGroupJoin, ClassicGroup.initNextGeneration) and as
	// the members see it in their JoinGroup responses, whether or not its
	// SyncGroup then completes: a member that leaves or joins before the
	// leader's assignment starts the next one at once.
	out.Note(sim.Note{Kind: sim.NoteRebalance, Value: int64(g.generation), Detail: "classic generation started"})
	for _, m := range g.kafkaOrder() {
		// Every member, rejoined or not, gets a fresh session timer and is
		// expected to sync; a static member that did not rejoin is in the
		// leader's member list with its last metadata (as in Kafka's
		// currentClassicGroupMembers) and is removed if it does not sync.
		g.setPendingSync(m, true)
		g.scheduleSession(env, m, m.SessionTimeout, out)
		if !m.AwaitingJoin {
			continue
		}
		m.AwaitingJoin, m.IsNew = false, false
		out.Send(m.Endpoint, g.joinResponse(m, false))
	}
	out.SetTimer(sim.TimerID{Kind: timerSync}, env.Now+g.rebalanceTimeout())
}

// --- SyncGroup ---

func (g *Group) onSyncGroup(env sim.CoordinatorEnv, from sim.Endpoint, req SyncGroupRequest, out *sim.Effects) {
	reply := func(code ErrorCode, a kafka.Assignment) {
		out.Send(from, g.syncResponses.New(SyncGroupResponse{Error: code, Assignment: a}))
	}
	m, code := g.validateExistingMember(req.MemberID, req.GroupInstanceID)
	switch {
	case code != None:
		reply(code, nil)
		return
	case req.Generation != g.generation:
		reply(IllegalGeneration, nil)
		return
	}
	switch g.state {
	case PreparingRebalance:
		reply(RebalanceInProgress, nil)
	case CompletingRebalance:
		m.Endpoint, m.AwaitingSync = from, true
		g.setPendingSync(m, false)
		g.scheduleSession(env, m, m.SessionTimeout, out)
		if m.ID == g.leader {
			// Assignments are values nobody changes in place: the
			// leader's are kept as they are, not copied.
			for _, o := range g.members {
				a := req.Assignments[o.ID]
				if a == nil {
					a = kafka.Assignment{}
				}
				o.Assignment = a
			}
			g.transition(Stable, out)
			for _, o := range g.kafkaOrder() {
				if o.AwaitingSync {
					o.AwaitingSync = false
					out.Send(o.Endpoint, g.syncResponses.New(SyncGroupResponse{Error: None, Assignment: o.Assignment}))
				}
			}
		}
	case Stable:
		m.Endpoint = from
		g.setPendingSync(m, false)
		g.scheduleSession(env, m, m.SessionTimeout, out)
		reply(None, m.Assignment)
	default:
		reply(UnknownMemberID, nil)
	}
}

// setPendingSync marks whether the group waits for m's SyncGroup.
func (g *Group) setPendingSync(m *Member, pending bool) {
	switch {
	case pending && !m.pendingSync:
		g.pendingSync++
	case !pending && m.pendingSync:
		g.pendingSync--
	}
	m.pendingSync = pending
}

// clearPendingSync stops waiting for any member's SyncGroup.
func (g *Group) clearPendingSync() {
	for _, m := range g.members {
		m.pendingSync = false
	}
	g.pendingSync = 0
}

// expirePendingSync removes members that never sent SyncGroup for this
// generation and rebalances without them.
func (g *Group) expirePendingSync(env sim.CoordinatorEnv, out *sim.Effects) {
	if g.state != CompletingRebalance && g.state != Stable {
		return
	}
	if g.pendingSync == 0 {
		return
	}
	for _, m := range slices.Clone(g.kafkaOrder()) {
		if m.pendingSync {
			g.removeMember(m, "did not send SyncGroup within the rebalance timeout", out)
		}
	}
	g.onMembershipChange(env, "members failed to sync", out)
}

// --- Heartbeat, LeaveGroup, expiry ---

// validateExistingMember is GroupMetadataManager.validateExistingMember
// (ClassicGroup.validateMember for heartbeats): a request naming an
// instance id is judged by the member that holds the instance id now, so
// a static member replaced by a newer incarnation learns that it was
// fenced (FENCED_INSTANCE_ID) rather than that it is unknown.
func (g *Group) validateExistingMember(id, instanceID string) (*Member, ErrorCode) {
	if instanceID == "" {
		if m := g.byID[id]; m != nil && m.InstanceID == "" {
			return m, None
		} else if m != nil {
			return nil, FencedInstanceID
		}
		return nil, UnknownMemberID
	}
	switch current := g.static[instanceID]; {
	case current == nil:
		return nil, UnknownMemberID
	case current.ID != id:
		return nil, FencedInstanceID
	default:
		return current, None
	}
}

func (g *Group) onHeartbeat(env sim.CoordinatorEnv, req HeartbeatRequest, out *sim.Effects) ErrorCode {
	m, code := g.validateExistingMember(req.MemberID, req.GroupInstanceID)
	switch {
	case g.state == Empty || g.state == Dead:
		return UnknownMemberID
	case code != None:
		return code
	case req.Generation != g.generation:
		return IllegalGeneration
	}
	g.scheduleSession(env, m, m.SessionTimeout, out)
	if g.state == PreparingRebalance {
		return RebalanceInProgress
	}
	return None
}

func (g *Group) onLeaveGroup(env sim.CoordinatorEnv, req LeaveGroupRequest, out *sim.Effects) ErrorCode {
	if g.pending[req.MemberID] {
		delete(g.pending, req.MemberID)
		out.CancelTimer(g.pendingTimer(req.MemberID))
		g.maybeCompleteJoin(env, out)
		return None
	}
	m, code := g.validateExistingMember(req.MemberID, req.GroupInstanceID)
	if code != None {
		return code
	}
	g.removeMember(m, "left the group", out)
	g.onMembershipChange(env, "member "+m.ID+" left", out)
	return None
}

// expireMemberHeartbeat is a member's session timer firing. Members parked
// in a join or sync phase satisfy the heartbeat by being parked, except new
// members, which get the new-member join timeout.
func (g *Group) expireMemberHeartbeat(env sim.CoordinatorEnv, id string, out *sim.Effects) {
	m := g.byID[id]
	if m == nil || g.state == Dead {
		return
	}
	if !m.IsNew && (m.AwaitingJoin || m.AwaitingSync) {
		return
	}
	g.removeMember(m, "session timeout expired", out)
	g.onMembershipChange(env, "member "+id+" expired", out)
}

// removeMember drops m from the group.
func (g *Group) removeMember(m *Member, reason string, out *sim.Effects) {
	if m.AwaitingJoin {
		out.Send(m.Endpoint, &JoinGroupResponse{Error: UnknownMemberID, MemberID: m.ID, Generation: -1})
	}
	if m.AwaitingSync {
		out.Send(m.Endpoint, &SyncGroupResponse{Error: UnknownMemberID})
	}
	out.CancelTimer(m.sessionTimer())
	g.dropMember(m)
	g.setPendingSync(m, false)
	if m.InstanceID != "" && g.static[m.InstanceID] == m {
		delete(g.static, m.InstanceID)
	}
	g.countProtocols(m.Protocols, -1)
	if g.leader == m.ID {
		// ClassicGroup.remove: the first member left in map order leads.
		g.leader = ""
		if order := g.kafkaOrder(); len(order) > 0 {
			g.leader = order[0].ID
		}
	}
	out.Note(sim.Note{Kind: sim.NoteMemberRemoved, Process: m.Endpoint.Process, MemberID: m.ID, Detail: reason})
}

// onMembershipChange rebalances after a removal, or lets a join phase in
// progress complete without the removed member.
func (g *Group) onMembershipChange(env sim.CoordinatorEnv, reason string, out *sim.Effects) {
	switch g.state {
	case Stable, CompletingRebalance:
		g.prepareRebalance(env, reason, out)
	case PreparingRebalance:
		g.maybeCompleteJoin(env, out)
	}
}

// --- protocol selection ---

// candidateProtocols are the assignors every member supports, sorted.
func (g *Group) candidateProtocols() []string {
	var cands []string
	for _, c := range g.supporters {
		if c.members == len(g.members) {
			cands = append(cands, c.name)
		}
	}
	slices.Sort(cands)
	return cands
}

// supportsProtocols tells whether a joining member shares an assignor with
// every other member (ClassicGroup.supportsProtocols). supporters counts,
// per assignor name, the members that list it, so the check does not walk
// the group.
func (g *Group) supportsProtocols(ps []ProtocolMetadata, self string) bool {
	others := len(g.members)
	var own []ProtocolMetadata
	if m := g.byID[self]; m != nil {
		others--
		own = m.Protocols
	}
	if others == 0 {
		return len(ps) > 0
	}
	for _, p := range ps {
		n := g.supporters.count(p.Name)
		if slices.ContainsFunc(own, func(o ProtocolMetadata) bool { return o.Name == p.Name }) {
			n--
		}
		if n == others {
			return true
		}
	}
	return false
}

// setProtocols replaces m's protocol list, keeping supporters in step.
func (g *Group) setProtocols(m *Member, ps []ProtocolMetadata) {
	g.countProtocols(m.Protocols, -1)
	m.Protocols = ps
	g.countProtocols(ps, +1)
}

func (g *Group) countProtocols(ps []ProtocolMetadata, delta int) {
	for _, p := range ps {
		g.supporters.add(p.Name, delta)
	}
}

// protocolCounts counts, per assignor name, the members that list it. A
// group sees a handful of assignors, and every JoinGroup counts its own
// twice (out and back in), so a short list, scanned, beats a map, hashed.
// Names counted down to zero are dropped, as candidateProtocols takes
// every name listed.
type protocolCounts []protocolCount

type protocolCount struct {
	name    string
	members int
}

func (pc protocolCounts) count(name string) int {
	for _, c := range pc {
		if c.name == name {
			return c.members
		}
	}
	return 0
}

func (pc *protocolCounts) add(name string, delta int) {
	for i := range *pc {
		if c := &(*pc)[i]; c.name == name {
			if c.members += delta; c.members == 0 {
				*pc = slices.Delete(*pc, i, i+1)
			}
			return
		}
	}
	*pc = append(*pc, protocolCount{name: name, members: delta})
}

// selectProtocol runs the vote of §2.3: each member votes for its first
// listed assignor among those every member supports; most votes wins. Kafka
// breaks ties by HashMap order; rebalsim breaks them by name, which is
// deterministic.
func (g *Group) selectProtocol() string {
	cands := g.candidateProtocols()
	// votes[i] counts the members whose first candidate is cands[i].
	votes := make([]int, len(cands))
	for _, m := range g.members {
		for _, p := range m.Protocols {
			if i := slices.Index(cands, p.Name); i >= 0 {
				votes[i]++
				break
			}
		}
	}
	best := -1
	for i := range cands {
		if best < 0 || votes[i] > votes[best] {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return cands[best]
}

// protocolsMatch compares the whole metadata, owned partitions included, as
// Kafka compares the serialized bytes: a cooperative member that rejoins
// after revoking partitions carries different metadata, and that difference
// is what starts the follow-up rebalance in a stable group.
func protocolsMatch(a, b []ProtocolMetadata) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i].Metadata, b[i].Metadata
		if a[i].Name != b[i].Name || !slices.Equal(x.Topics, y.Topics) || !x.Owned.Equal(y.Owned) || x.Generation != y.Generation {
			return false
		}
	}
	return true
}

// sameTopics compares only the subscribed topics: a static member coming
// back carries no owned partitions, yet is the same member as far as the
// assignment is concerned.
func sameTopics(a, b []ProtocolMetadata) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !slices.Equal(a[i].Metadata.Topics, b[i].Metadata.Topics) {
			return false
		}
	}
	return true
}
