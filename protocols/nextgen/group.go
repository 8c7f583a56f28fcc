package nextgen

import (
	"fmt"
	"slices"
	"time"

	"github.com/rebalsim/rebalsim/internal/javaorder"
	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/nextgen/assignor"
	"github.com/rebalsim/rebalsim/protocols/nextgen/reconcile"
	"github.com/rebalsim/rebalsim/sim"
)

// GroupState is a consumer group's state (ConsumerGroup.ConsumerGroupState),
// derived from its epochs and members after every change
// (ConsumerGroup.maybeUpdateGroupState).
type GroupState int

const (
	// GroupEmpty: no members.
	GroupEmpty GroupState = iota
	// GroupAssigning: the group epoch moved past the target assignment epoch
	// and no new target has been computed yet.
	GroupAssigning
	// GroupReconciling: some member has not caught up with the target.
	GroupReconciling
	// GroupStable: every member holds its target at the target epoch.
	GroupStable
)

func (s GroupState) String() string {
	return [...]string{"EMPTY", "ASSIGNING", "RECONCILING", "STABLE"}[s]
}

// member is the coordinator's record of one consumer group member
// (ConsumerGroupMember). Its reconcile.Member holds the epochs and the
// current assignment that CurrentAssignmentBuilder works on.
type member struct {
	// The fields every target computation reads or writes for every
	// member come first, side by side: in a large group those passes
	// touch hundreds of members.
	id         string
	instanceID string
	// hash is id's Java hash code, which places the member in Kafka's
	// member maps (see consumerGroup.specOrder).
	hash uint32
	// handle is id's handle (sim.MemberHandles), which names the
	// member's timers.
	handle sim.MemberHandle
	// inGroup is set while the record is in the member map, under its id.
	inGroup bool
	// subscription is sorted and free of duplicates.
	subscription []string
	// target is the member's target assignment, nil until the first
	// computation that includes the member. It is kept here rather than
	// in a map by member id because every recomputation reads and writes
	// every member's.
	target kafka.Assignment
	// serverAssignor is the member's group.remote.assignor, "" if none.
	serverAssignor string
	reconcile.Member

	clientID string
	// endpoint is where the member's requests came from last; notes name
	// its process.
	endpoint         sim.Endpoint
	rebalanceTimeout time.Duration
	// classic is set for a member that speaks the classic protocol
	// (ConsumerGroupMember.classicMemberMetadata).
	classic *classicMetadata
	// rebalanceTimeoutEpoch is the member epoch the rebalance timer was
	// armed for: it fences only if the member is still at that epoch.
	rebalanceTimeoutEpoch int32
	// joinTimerArmed tells whether a classic member's join timer runs
	// (it is scheduled only if absent).
	joinTimerArmed bool
	// assignmentEpochs validate its offset commits (offset_commit.go).
	assignmentEpochs assignmentEpochs
}

// timer names the member's timer of kind.
func (m *member) timer(kind sim.TimerKind) sim.TimerID {
	return sim.TimerID{Kind: kind, Handle: m.handle, Member: m.id}
}

// classicMetadata is what the coordinator keeps of a classic member's last
// JoinGroup: enough to answer it and to rebuild a classic group.
type classicMetadata struct {
	sessionTimeout time.Duration
	protocols      []classic.ProtocolMetadata
}

func (m *member) useClassicProtocol() bool { return m.classic != nil }

// isReconciledTo is ModernGroupMember.isReconciledTo.
func (m *member) isReconciledTo(targetEpoch int32) bool {
	return m.State == reconcile.Stable && m.Epoch == targetEpoch
}

// consumerGroup is one KIP-848 consumer group (ConsumerGroup): its members
// in insertion order, the group and target-assignment epochs, the target
// assignment and the partition epochs that keep a partition from having
// two owners.
type consumerGroup struct {
	cfg sim.GroupConfig
	// assignors resolves server assignor names, custom ones included.
	assignors   assignor.Set
	groupEpoch  int32
	targetEpoch int32
	// unreconciled counts the members not yet reconciled to the target
	// epoch (see countReconciling).
	unreconciled int
	// members in the order they were put in Kafka's member map
	// (ConsumerGroup.members, a TimelineHashMap keyed by member id); a
	// static member's replacement is a new key, put last. tableCap is that
	// map's table size, which grows with the group and never shrinks.
	members  []*member
	tableCap int
	// fresh is the member the request being handled put in the group
	// (a join, or a static member's replacement) and tableCapBefore the
	// table size before it: Kafka computes the target before the member's
	// records reach the map, so the assignors see it after the others.
	fresh          *member
	tableCapBefore int
	byID           map[string]*member
	static         map[string]*member // by instance id
	// handles is the coordinator's numbering of member ids for their
	// timers.
	handles *sim.MemberHandles
	// serverAssignors counts the members asking for each server assignor
	// (ConsumerGroup.serverAssignors), kept as members come, go and
	// change their minds, so that a recomputation of the target need not
	// visit every member to pick one.
	serverAssignors map[string]int
	// specMembers is the assignor input's member list, kept for reuse.
	specMembers []assignor.Member
	// commonSubscription is the subscription members share when theirs
	// is the same (see subscriptionOf).
	commonSubscription []string
	// partitionEpochs holds, for every partition some member holds or is
	// revoking, that member's epoch (ConsumerGroup.currentPartitionEpoch).
	partitionEpochs partitionEpochs
	// subscriptionMetadata are the subscribed topics that exist, with their
	// partition counts, in metadata order.
	subscriptionMetadata []kafka.Topic
	// metadataExpired makes the next heartbeat refresh subscriptionMetadata
	// (ModernGroup.requestMetadataRefresh on a new metadata image).
	metadataExpired bool
	// lastAssignmentAt is when the target was last computed, for the
	// optional assignment interval.
	lastAssignmentAt time.Duration
	hasAssigned      bool
}

func newConsumerGroup(cfg sim.GroupConfig, assignors assignor.Set, handles *sim.MemberHandles) *consumerGroup {
	// A new group's metadata refresh deadline has passed already
	// (ModernGroup's DeadlineAndEpoch.EMPTY): its first heartbeat computes
	// the subscription metadata.
	return &consumerGroup{cfg: cfg, assignors: assignors, byID: map[string]*member{}, static: map[string]*member{}, handles: handles,
		serverAssignors: map[string]int{}, partitionEpochs: partitionEpochs{}, metadataExpired: true,
		tableCap: javaorder.TimelineMinCapacity}
}

func (g *consumerGroup) isEmpty() bool { return len(g.members) == 0 }

// state is ConsumerGroup.maybeUpdateGroupState.
func (g *consumerGroup) state() GroupState {
	switch {
	case len(g.members) == 0:
		return GroupEmpty
	case g.groupEpoch > g.targetEpoch:
		return GroupAssigning
	}
	if g.unreconciled > 0 {
		return GroupReconciling
	}
	return GroupStable
}

// countReconciling adds d for m unless m holds the target at the target
// epoch; unreconciled so counts what state would otherwise find by a scan
// of every member, which the coordinator asks for on every heartbeat.
func (g *consumerGroup) countReconciling(m *member, d int) {
	if !m.isReconciledTo(g.targetEpoch) {
		g.unreconciled += d
	}
}

// setTarget moves the target epoch to e, gives the members whose target
// changed their new one (targets in the order of the members the
// assignors saw, order; nil keeps every member's) and recounts the
// members that have not caught up. Only a changed member's target is
// built as a map, as TargetAssignmentBuilder.build writes target records
// only for the members whose assignment changed.
func (g *consumerGroup) setTarget(e int32, order []*member, targets *assignor.GroupAssignment) {
	g.targetEpoch = e
	g.unreconciled = 0
	if targets != nil {
		for i, m := range order {
			if !targets.Kept(i) {
				m.target = targets.Member(i)
			}
		}
	}
	for _, m := range g.members {
		g.countReconciling(m, +1)
	}
}

func (g *consumerGroup) staticMember(instanceID string) *member {
	return g.static[instanceID]
}

// isFull is throwIfConsumerGroupIsFull: a full group only admits members it
// already has.
func (g *consumerGroup) isFull(memberID string) bool {
	if g.cfg.MaxSize <= 0 || len(g.members) < g.cfg.MaxSize {
		return false
	}
	return memberID == "" || g.byID[memberID] == nil
}

// currentPartitionEpoch returns the epoch of tp's owner, -1 if it is free.
func (g *consumerGroup) currentPartitionEpoch(tp kafka.TopicPartition) int32 {
	return g.partitionEpochs.get(tp)
}

// setAssignment replaces a member's reconciliation record and moves its
// partition epochs along (ConsumerGroup.maybeUpdatePartitionEpoch): the
// partitions it holds or is revoking are claimed at its new epoch.
func (g *consumerGroup) setAssignment(m *member, next reconcile.Member) {
	g.partitionEpochs.release(m.Assigned, m.Epoch)
	g.partitionEpochs.release(m.PendingRevocation, m.Epoch)
	g.countReconciling(m, -1)
	// An epoch bump that leaves what the member holds and revokes as it
	// was (most members, most bumps) gives no partition a new assignment
	// epoch: noteAssignment would find every partition noted already.
	same := m.assignmentEpochs != nil && next.Assigned.Equal(m.Assigned) && next.PendingRevocation.Equal(m.PendingRevocation)
	m.Member = next
	g.countReconciling(m, +1)
	m.emptyNotNil()
	g.partitionEpochs.claim(m.Assigned, m.Epoch)
	g.partitionEpochs.claim(m.PendingRevocation, m.Epoch)
	if !same {
		m.noteAssignment(m.Assigned, m.PendingRevocation, m.Epoch)
	}
}

// advanceEpoch moves a stable member that holds its target and revokes
// nothing to epoch, as setAssignment would with the same partitions, their
// partition epochs along with it, without building its assignment again.
// Its lists are not nil already: addMember and setAssignment saw to it.
func (g *consumerGroup) advanceEpoch(m *member, epoch int32) {
	g.countReconciling(m, -1)
	g.partitionEpochs.move(m.Assigned, m.Epoch, epoch)
	m.PreviousEpoch, m.Epoch = m.Epoch, epoch
	g.countReconciling(m, +1)
	if m.assignmentEpochs == nil {
		m.noteAssignment(m.Assigned, m.PendingRevocation, m.Epoch)
	}
}

// emptyNotNil gives a member an empty assignment and revocation where it
// has none, so that the group's readers need not tell nil from empty.
func (m *member) emptyNotNil() {
	if m.Assigned == nil {
		m.Assigned = kafka.Assignment{}
	}
	if m.PendingRevocation == nil {
		m.PendingRevocation = kafka.Assignment{}
	}
}

// addMember appends a member and claims what it holds.
func (g *consumerGroup) addMember(m *member) {
	if g.byID[m.id] != nil {
		panic(fmt.Sprintf("nextgen: member %s added twice", m.id))
	}
	m.emptyNotNil()
	g.putMember(m)
	g.countReconciling(m, +1)
	if m.instanceID != "" {
		g.static[m.instanceID] = m
	}
	g.countServerAssignor(m.serverAssignor, +1)
	g.partitionEpochs.claim(m.Assigned, m.Epoch)
	g.partitionEpochs.claim(m.PendingRevocation, m.Epoch)
	m.noteAssignment(m.Assigned, m.PendingRevocation, m.Epoch)
}

// removeMember drops a member with its current and target assignment
// (GroupMetadataManager.removeMember writes the three tombstones): its
// partitions become free at once.
func (g *consumerGroup) removeMember(m *member) {
	g.partitionEpochs.release(m.Assigned, m.Epoch)
	g.partitionEpochs.release(m.PendingRevocation, m.Epoch)
	g.dropMember(m)
	g.countReconciling(m, -1)
	if m.instanceID != "" && g.static[m.instanceID] == m {
		delete(g.static, m.instanceID)
	}
	g.countServerAssignor(m.serverAssignor, -1)
}

// putMember puts m last in the member map and marks it fresh.
func (g *consumerGroup) putMember(m *member) {
	m.hash, m.handle, m.inGroup = javaorder.StringHash(m.id), g.handles.Of(m.id), true
	g.fresh, g.tableCapBefore = m, g.tableCap
	g.tableCap = javaorder.TimelineGrow(len(g.members), g.tableCap)
	g.members = append(g.members, m)
	g.byID[m.id] = m
}

// dropMember takes m out of the member map.
func (g *consumerGroup) dropMember(m *member) {
	delete(g.byID, m.id)
	m.inGroup = false
	g.members = slices.DeleteFunc(g.members, func(o *member) bool { return o == m })
	if g.fresh == m {
		g.fresh = nil
	}
}

// timelineOrder is the iteration order of ConsumerGroup.members, a
// TimelineHashMap: slot by slot of the members' id hash codes, each slot
// from the last put to the first (javaorder). Without the fresh member, whose records
// Kafka has not applied yet, when withoutFresh is set.
func (g *consumerGroup) timelineOrder(withoutFresh bool) []*member {
	members, capacity := g.members, g.tableCap
	if withoutFresh && g.fresh != nil {
		members, capacity = slices.DeleteFunc(slices.Clone(members), func(o *member) bool { return o == g.fresh }), g.tableCapBefore
	}
	order := make([]*member, 0, len(g.members))
	for _, i := range javaorder.TimelineOrder(len(members), capacity, func(i int) uint32 { return members[i].hash }) {
		order = append(order, members[i])
	}
	return order
}

// specOrder is the order of the members in the assignors' GroupSpec:
// TargetAssignmentBuilder.build puts every member of the map into a new
// java.util.HashMap (memberSpecs) in the map's order, then the member the
// request updated if it is new, and the GroupSpec's member ids are that
// HashMap's key set.
func (g *consumerGroup) specOrder() []*member {
	put := g.timelineOrder(true)
	if g.fresh != nil {
		put = append(put, g.fresh)
	}
	capacity := javaorder.HashMapCapacity(len(put))
	order := make([]*member, 0, len(put))
	for _, i := range javaorder.HashMapOrder(len(put), capacity, func(i int) uint32 { return put[i].hash }) {
		order = append(order, put[i])
	}
	return order
}

// replaceMember puts a returning static member in place of its previous
// incarnation (GroupMetadataManager.replaceMember): a copy under the new id,
// at epoch 0, with the same current assignment and the same target. The
// member map drops the old id and puts the new one, last.
func (g *consumerGroup) replaceMember(old *member, newID string) *member {
	n := *old
	n.id = newID
	n.Assigned = old.Assigned.Clone()
	n.PendingRevocation = old.PendingRevocation.Clone()
	n.Epoch, n.PreviousEpoch = 0, 0
	n.rebalanceTimeoutEpoch, n.joinTimerArmed = 0, false
	// The replacement holds what it holds at its epoch 0.
	n.assignmentEpochs = nil
	n.noteAssignment(n.Assigned, n.PendingRevocation, n.Epoch)
	g.partitionEpochs.release(old.Assigned, old.Epoch)
	g.partitionEpochs.release(old.PendingRevocation, old.Epoch)
	g.dropMember(old)
	g.putMember(&n)
	g.countReconciling(old, -1)
	g.countReconciling(&n, +1)
	g.static[n.instanceID] = &n
	g.partitionEpochs.claim(n.Assigned, n.Epoch)
	g.partitionEpochs.claim(n.PendingRevocation, n.Epoch)
	return &n
}

// subscribed tells whether some member subscribes to topic.
func (g *consumerGroup) subscribed(topic string) bool {
	for _, m := range g.members {
		if _, ok := slices.BinarySearch(m.subscription, topic); ok {
			return true
		}
	}
	return false
}

// groupSpec is the assignors' view of the group: every member with its
// subscription and current target, in member order, and the subscription
// type. The type is ModernGroup.subscriptionType: homogeneous iff every
// subscribed topic is subscribed by every member. Subscriptions are sorted
// and free of duplicates, so that is every member subscribing to the same
// list, which needs no counting map.
//
// In a large group the target is recomputed on every join, so one pass
// over the members finds both, and the member list is reused from one
// computation to the next: the caller hands it back to g.specMembers.
func (g *consumerGroup) groupSpec(order []*member) assignor.GroupSpec {
	spec := assignor.GroupSpec{Type: assignor.Homogeneous, Members: g.specMembers[:0]}
	for _, m := range order {
		if spec.Type == assignor.Homogeneous && !sameTopics(m.subscription, g.members[0].subscription) {
			spec.Type = assignor.Heterogeneous
		}
		spec.Members = append(spec.Members, assignor.Member{ID: m.id, InstanceID: m.instanceID, Topics: m.subscription, Current: m.target})
	}
	return spec
}

// computeSubscriptionMetadata lists the subscribed topics that exist, with
// their partition counts, in metadata order.
// It runs on every join, so it asks of each topic whether some member
// subscribes to it, which the first member usually answers, rather than
// counting every member's subscriptions.
func (g *consumerGroup) computeSubscriptionMetadata(metadata []kafka.Topic) []kafka.Topic {
	var out []kafka.Topic
	for _, t := range metadata {
		if g.subscribed(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// setServerAssignor records the server assignor m asks for, "" for none.
func (g *consumerGroup) setServerAssignor(m *member, name string) {
	if g.byID[m.id] == m {
		g.countServerAssignor(m.serverAssignor, -1)
		g.countServerAssignor(name, +1)
	}
	m.serverAssignor = name
}

// countServerAssignor adds d members asking for the server assignor name.
func (g *consumerGroup) countServerAssignor(name string, d int) {
	if name == "" {
		return
	}
	if g.serverAssignors[name] += d; g.serverAssignors[name] == 0 {
		delete(g.serverAssignors, name)
	}
}

// preferredServerAssignor is the server assignor most members ask for
// (ConsumerGroup.computePreferredServerAssignor), else the group default.
// Kafka breaks ties by hash order; rebalsim by name.
func (g *consumerGroup) preferredServerAssignor() string {
	// The map's order cannot show: the winner is the most asked for, and
	// of those the first by name.
	best, most := "", 0
	for name, n := range g.serverAssignors {
		if n > most || (n == most && name < best) {
			best, most = name, n
		}
	}
	if best == "" {
		return g.cfg.Assignor
	}
	return best
}

// mayComputeTarget tells whether the optional assignment interval (the
// newer group.consumer.assignment.interval.ms) lets a new target be
// computed now; 0 disables the limit, as in 4.0.
func (g *consumerGroup) mayComputeTarget(now time.Duration) bool {
	return g.cfg.AssignmentInterval <= 0 || !g.hasAssigned || now >= g.lastAssignmentAt+g.cfg.AssignmentInterval
}

// updateTargetAssignment runs the preferred assignor over every member's
// subscription and current target (TargetAssignmentBuilder) and makes the
// result the target at the group epoch. release is the broker's Kafka
// release: 4.1 changed the uniform assignor's homogeneous builder
// (KAFKA-18688).
func (g *consumerGroup) updateTargetAssignment(now time.Duration, release string) {
	name := g.preferredServerAssignor()
	a, ok := g.assignors.ByName(name)
	if !ok {
		panic(fmt.Sprintf("nextgen: unknown server assignor %q", name))
	}
	order := g.specOrder()
	spec := g.groupSpec(order)
	spec.ExtraToAnyMember = sim.ReleaseAtLeast(release, "4.1")
	// AssignGroup gives a member the assignor left out an empty target and
	// drops ids that are not members.
	target, err := assignor.AssignGroup(a, spec, g.subscriptionMetadata)
	clear(spec.Members) // keep no old targets alive through the buffer
	g.specMembers = spec.Members
	if err != nil {
		panic(fmt.Sprintf("nextgen: assignor %s: %v", name, err))
	}
	g.setTarget(g.groupEpoch, order, target)
	g.lastAssignmentAt, g.hasAssigned = now, true
}

// targetOf returns a member's target, empty if it has none yet.
func (g *consumerGroup) targetOf(m *member) kafka.Assignment {
	if m.target != nil {
		return m.target
	}
	return kafka.Assignment{}
}

// waitingOnUnreleasedPartition tells whether a member in
// UNRELEASED_PARTITIONS still waits for a partition someone else holds
// (ConsumerGroup.waitingOnUnreleasedPartition).
func (g *consumerGroup) waitingOnUnreleasedPartition(m *member) bool {
	if m.State != reconcile.UnreleasedPartitions {
		return false
	}
	for _, tp := range g.targetOf(m).Partitions() {
		if !m.Assigned.Contains(tp) && g.currentPartitionEpoch(tp) != -1 {
			return true
		}
	}
	return false
}

func (g *consumerGroup) numClassicProtocolMembers() int {
	n := 0
	for _, m := range g.members {
		if m.useClassicProtocol() {
			n++
		}
	}
	return n
}

// allMembersUseClassicProtocolExcept tells whether id is the only member
// speaking the consumer protocol (ConsumerGroup.allMembersUseClassicProtocolExcept).
func (g *consumerGroup) allMembersUseClassicProtocolExcept(id string) bool {
	m := g.byID[id]
	return m != nil && !m.useClassicProtocol() && g.numClassicProtocolMembers() == len(g.members)-1
}

// supportsClassicProtocols tells whether a classic member's assignors
// include one every classic member supports (ConsumerGroup.supportsClassicProtocols).
func (g *consumerGroup) supportsClassicProtocols(ps []classic.ProtocolMetadata) bool {
	if len(g.members) == 0 {
		return len(ps) > 0
	}
	n := g.numClassicProtocolMembers()
	for _, p := range ps {
		supported := 0
		for _, m := range g.members {
			if m.useClassicProtocol() && slices.ContainsFunc(m.classic.protocols, func(q classic.ProtocolMetadata) bool { return q.Name == p.Name }) {
				supported++
			}
		}
		if supported == n {
			return true
		}
	}
	return false
}

// subscriptionOf is topics sorted and free of duplicates, as a member's
// subscription. A subscription equal to the group's common one (the first
// seen) is that very slice, so that in a homogeneous group every member
// holds the same list and groupSpec finds the group homogeneous without
// reading each member's. Subscriptions are never changed in place.
func (g *consumerGroup) subscriptionOf(topics []string) []string {
	s := sortedTopics(topics)
	switch {
	case len(s) == 0:
	case g.commonSubscription == nil:
		g.commonSubscription = s
	case slices.Equal(s, g.commonSubscription):
		return g.commonSubscription
	}
	return s
}

// sameTopics tells whether two sorted subscriptions are equal, at once
// when they are the same slice.
func sameTopics(a, b []string) bool {
	if len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) {
		return true
	}
	return slices.Equal(a, b)
}

// sortedTopics returns a sorted, duplicate-free copy of topics.
func sortedTopics(topics []string) []string {
	out := slices.Clone(topics)
	slices.Sort(out)
	return slices.Compact(out)
}

func topicsEqual(a, b []kafka.Topic) bool { return slices.Equal(a, b) }
