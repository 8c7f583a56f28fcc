package nextgen

import (
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/nextgen/reconcile"
	"github.com/rebalsim/rebalsim/sim"
)

// Classic members inside a consumer group (reference §5.2). They keep
// speaking JoinGroup/SyncGroup/Heartbeat/LeaveGroup; the coordinator
// answers each request at once from the consumer group's state: no join
// phase, no leader, no client-side assignor. A member learns of a new
// target from REBALANCE_IN_PROGRESS on its heartbeat, rejoins, and the
// JoinGroup runs the same reconciliation as a ConsumerGroupHeartbeat, with
// the owned partitions its subscription reports.

// classicSubscription is the subscription a classic member sends: every
// protocol carries the same one (deserializeSubscription reads the first).
func classicSubscription(ps []classic.ProtocolMetadata) classic.Subscription {
	if len(ps) == 0 {
		return classic.Subscription{Generation: -1}
	}
	return ps[0].Metadata
}

// classicGroupJoinToConsumerGroup is GroupMetadataManager.classicGroupJoinToConsumerGroup.
func (c *Coordinator) classicGroupJoinToConsumerGroup(env sim.CoordinatorEnv, from sim.Endpoint, req classic.JoinGroupRequest, out *sim.Effects) {
	g := c.consumer
	reply := func(code classic.ErrorCode, memberID string) {
		out.Send(from, &classic.JoinGroupResponse{Error: code, MemberID: memberID, Generation: -1})
	}
	memberID := req.MemberID
	unknown := memberID == ""
	if unknown {
		memberID = c.mintID(env, from, req.ClientID)
	}
	switch {
	case g.isFull(memberID):
		reply(GroupMaxSizeReached, req.MemberID)
		return
	case !g.supportsClassicProtocols(req.Protocols):
		reply(classic.InconsistentGroupProtocol, req.MemberID)
		return
	case unknown && req.GroupInstanceID == "":
		// KIP-394: a dynamic member first gets its id and comes back.
		reply(classic.MemberIDRequired, memberID)
		return
	}

	var m *member
	var replaced *member
	if req.GroupInstanceID == "" {
		if m = g.byID[memberID]; m == nil {
			m = newMember(memberID)
		}
	} else {
		existing := g.staticMember(req.GroupInstanceID)
		var code classic.ErrorCode
		m, code = c.getOrMaybeSubscribeStaticMember(from, memberID, req.GroupInstanceID, -1, nil, unknown, true, out)
		if code != None {
			reply(code, req.MemberID)
			return
		}
		if existing != nil && existing.id != m.id {
			replaced = existing
		}
	}

	// 1. Update the member from the JoinGroup and its subscription.
	sub := classicSubscription(req.Protocols)
	oldSubscription := m.subscription
	m.endpoint, m.clientID = from, req.ClientID
	m.instanceID = req.GroupInstanceID
	m.rebalanceTimeout = req.RebalanceTimeout
	m.subscription = g.subscriptionOf(sub.Topics)
	m.classic = &classicMetadata{sessionTimeout: req.SessionTimeout, protocols: slices.Clone(req.Protocols)}
	if g.byID[m.id] == nil {
		g.addMember(m)
		c.noteMemberAdded(m, out)
	}
	c.updateGroupEpochAndTarget(env, m, !slices.Equal(oldSubscription, m.subscription), out)

	// 2. Reconcile with what the member says it owns.
	owned := sub.Owned
	if owned == nil {
		owned = kafka.Assignment{}
	}
	if code := c.maybeReconcile(env, m, owned, true, out); code != None {
		reply(code, req.MemberID)
		return
	}

	// 3. The last consumer-protocol static member replaced by a classic one
	// turns the group classic again.
	resp := &classic.JoinGroupResponse{Error: None, Generation: m.Epoch, ProtocolName: req.Protocols[0].Name, MemberID: m.id}
	out.CancelTimer(m.timer(timerJoin))
	m.joinTimerArmed = false
	if replaced != nil && c.validateOnlineDowngradeWithReplacedMember(replaced, m) {
		c.convertToClassicGroup(env, replaced, m, "static member "+m.instanceID+" replaced by a classic member", out)
		resp.Generation = c.classic.Generation()
		out.Send(from, resp)
		return
	}
	c.scheduleSessionTimeout(env, m, req.SessionTimeout, out)
	out.SetTimer(m.timer(timerSync), env.Now+req.RebalanceTimeout)
	out.Send(from, resp)
}

// validateConsumerGroupMember finds the member a classic request names, by
// instance id for a static member (validateConsumerGroupMember).
func (c *Coordinator) validateConsumerGroupMember(memberID, instanceID string) (*member, classic.ErrorCode) {
	g := c.consumer
	if instanceID == "" {
		if m := g.byID[memberID]; m != nil {
			return m, None
		}
		return nil, UnknownMemberID
	}
	m := g.staticMember(instanceID)
	switch {
	case m == nil:
		return nil, UnknownMemberID
	case m.id != memberID:
		return nil, FencedInstanceID
	}
	return m, None
}

// classicGroupSyncToConsumerGroup is GroupMetadataManager.classicGroupSyncToConsumerGroup:
// the member gets its current assigned partitions — what it may hold now,
// not its target.
func (c *Coordinator) classicGroupSyncToConsumerGroup(env sim.CoordinatorEnv, from sim.Endpoint, req classic.SyncGroupRequest, out *sim.Effects) {
	reply := func(code classic.ErrorCode, a kafka.Assignment) {
		out.Send(from, &classic.SyncGroupResponse{Error: code, Assignment: a})
	}
	if c.consumer.isEmpty() {
		reply(UnknownMemberID, nil)
		return
	}
	m, code := c.validateConsumerGroupMember(req.MemberID, req.GroupInstanceID)
	switch {
	case code != None:
		reply(code, nil)
		return
	case !m.useClassicProtocol():
		reply(UnknownMemberID, nil)
		return
	case m.Epoch != req.Generation:
		reply(classic.IllegalGeneration, nil)
		return
	case c.rebalanceInProgress(env, m, out):
		reply(classic.RebalanceInProgress, nil)
		return
	}
	m.endpoint = from
	out.CancelTimer(m.timer(timerSync))
	c.scheduleSessionTimeout(env, m, m.classic.sessionTimeout, out)
	reply(None, m.Assigned.Clone())
}

// rebalanceInProgress is throwIfRebalanceInProgress: a member behind the
// group epoch must rejoin to catch up, unless it still has partitions to
// revoke — then it first finishes that.
func (c *Coordinator) rebalanceInProgress(env sim.CoordinatorEnv, m *member, out *sim.Effects) bool {
	if c.consumer.groupEpoch > m.Epoch && m.State != reconcile.UnrevokedPartitions {
		c.scheduleJoinTimeoutIfAbsent(env, m, out)
		return true
	}
	return false
}

// scheduleJoinTimeoutIfAbsent arms the timer that fences a classic member
// that does not rejoin within its rebalance timeout.
func (c *Coordinator) scheduleJoinTimeoutIfAbsent(env sim.CoordinatorEnv, m *member, out *sim.Effects) {
	if m.joinTimerArmed {
		return
	}
	m.joinTimerArmed = true
	out.SetTimer(m.timer(timerJoin), env.Now+m.rebalanceTimeout)
}

// classicGroupHeartbeatToConsumerGroup is GroupMetadataManager
// .classicGroupHeartbeatToConsumerGroup. The answer is REBALANCE_IN_PROGRESS
// when the member should rejoin: the group epoch moved past it, it has
// partitions to revoke, or partitions it waited for have become free.
func (c *Coordinator) classicGroupHeartbeatToConsumerGroup(env sim.CoordinatorEnv, from sim.Endpoint, req classic.HeartbeatRequest, out *sim.Effects) classic.ErrorCode {
	g := c.consumer
	m, code := c.validateConsumerGroupMember(req.MemberID, req.GroupInstanceID)
	switch {
	case code != None:
		return code
	case !m.useClassicProtocol():
		return UnknownMemberID
	case m.Epoch != req.Generation:
		return classic.IllegalGeneration
	}
	m.endpoint = from
	c.scheduleSessionTimeout(env, m, m.classic.sessionTimeout, out)
	if m.Epoch < g.groupEpoch || m.State == reconcile.UnrevokedPartitions ||
		(m.State == reconcile.UnreleasedPartitions && !g.waitingOnUnreleasedPartition(m)) {
		c.scheduleJoinTimeoutIfAbsent(env, m, out)
		return classic.RebalanceInProgress
	}
	return None
}

// classicGroupLeaveToConsumerGroup is GroupMetadataManager
// .classicGroupLeaveToConsumerGroup: the member is removed and the group
// epoch bumped.
func (c *Coordinator) classicGroupLeaveToConsumerGroup(env sim.CoordinatorEnv, req classic.LeaveGroupRequest, out *sim.Effects) classic.ErrorCode {
	g := c.consumer
	var m *member
	if req.GroupInstanceID == "" {
		m = g.byID[req.MemberID]
	} else {
		m = g.staticMember(req.GroupInstanceID)
		if m != nil && req.MemberID != "" && m.id != req.MemberID {
			return FencedInstanceID
		}
	}
	if m == nil || !m.useClassicProtocol() {
		return UnknownMemberID
	}
	c.removeMemberAndBump(env, m, "the classic member left the group", out)
	return None
}
