package nextgen

import (
	"slices"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/nextgen/assignor"
	"github.com/rebalsim/rebalsim/protocols/nextgen/reconcile"
	"github.com/rebalsim/rebalsim/sim"
)

// onConsumerGroupHeartbeat is GroupMetadataManager.consumerGroupHeartbeat
// (the public one): validate, then leave or heartbeat.
func (c *Coordinator) onConsumerGroupHeartbeat(env sim.CoordinatorEnv, from sim.Endpoint, req *ConsumerGroupHeartbeatRequest, out *sim.Effects) {
	if code := validateConsumerGroupHeartbeat(req, c.assignors); code != None {
		c.replyHeartbeatError(from, req, code, out)
		return
	}
	if req.MemberEpoch == LeaveGroupMemberEpoch || req.MemberEpoch == LeaveGroupStaticMemberEpoch {
		c.consumerGroupLeave(env, from, req, out)
		return
	}
	if code := c.getOrMaybeCreateConsumerGroup(env, req.MemberEpoch == JoinGroupMemberEpoch, out); code != None {
		c.replyHeartbeatError(from, req, code, out)
		return
	}
	c.consumerGroupHeartbeat(env, from, req, out)
}

func (c *Coordinator) replyHeartbeatError(from sim.Endpoint, req *ConsumerGroupHeartbeatRequest, code classic.ErrorCode, out *sim.Effects) {
	out.Send(from, c.responses.New(ConsumerGroupHeartbeatResponse{CorrelationID: req.CorrelationID, ErrorCode: code, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch}))
}

// validateConsumerGroupHeartbeat is throwIfConsumerGroupHeartbeatRequestIsInvalid:
// a join must bring its rebalance timeout and subscription and no
// partitions; anything but a join must name its member.
func validateConsumerGroupHeartbeat(req *ConsumerGroupHeartbeatRequest, assignors assignor.Set) classic.ErrorCode {
	switch {
	case req.MemberEpoch > 0 || req.MemberEpoch == LeaveGroupMemberEpoch:
		if req.MemberID == "" {
			return InvalidRequest
		}
	case req.MemberEpoch == JoinGroupMemberEpoch:
		if req.RebalanceTimeoutMs == -1 || req.TopicPartitions == nil || req.TopicPartitions.Size() > 0 || len(req.SubscribedTopicNames) == 0 {
			return InvalidRequest
		}
	case req.MemberEpoch == LeaveGroupStaticMemberEpoch:
		if req.MemberID == "" || req.InstanceID == "" {
			return InvalidRequest
		}
	default:
		return InvalidRequest
	}
	if req.ServerAssignor != "" {
		if _, ok := assignors.ByName(req.ServerAssignor); !ok {
			return UnsupportedAssignor
		}
	}
	return None
}

// getOrMaybeCreateConsumerGroup is GroupMetadataManager
// .getOrMaybeCreateConsumerGroup: a join to an empty classic group replaces
// it, a join to a non-empty one converts it if the migration policy allows,
// and anything else sent to a classic group finds no consumer group.
func (c *Coordinator) getOrMaybeCreateConsumerGroup(env sim.CoordinatorEnv, createIfNotExists bool, out *sim.Effects) classic.ErrorCode {
	if c.consumer != nil {
		return None
	}
	switch {
	case !createIfNotExists:
		return GroupIDNotFound
	case c.classic.GroupState() == classic.Empty:
		c.deleteEmptyClassicGroup(env, out)
		return None
	case c.validateOnlineUpgrade():
		c.convertToConsumerGroup(env, out)
		return None
	}
	return GroupIDNotFound
}

// consumerGroupHeartbeat is the regular heartbeat of a consumer-protocol
// member (GroupMetadataManager.consumerGroupHeartbeat, the private one), in
// Kafka's order: get or create the member, update it (a subscription change
// bumps the group epoch), bring the target up to date, reconcile the
// member, re-arm its session timer, respond.
func (c *Coordinator) consumerGroupHeartbeat(env sim.CoordinatorEnv, from sim.Endpoint, req *ConsumerGroupHeartbeatRequest, out *sim.Effects) {
	g := c.consumer
	if g.isFull(req.MemberID) {
		c.replyHeartbeatError(from, req, GroupMaxSizeReached, out)
		return
	}
	memberID := req.MemberID
	if memberID == "" {
		memberID = c.mintID(env, from, from.Process)
	}
	join := req.MemberEpoch == JoinGroupMemberEpoch
	var m *member
	var code classic.ErrorCode
	if req.InstanceID == "" {
		m, code = c.getOrMaybeSubscribeDynamicMember(memberID, req.MemberEpoch, req.TopicPartitions, join)
	} else {
		m, code = c.getOrMaybeSubscribeStaticMember(from, memberID, req.InstanceID, req.MemberEpoch, req.TopicPartitions, join, false, out)
	}
	if code != None {
		c.replyHeartbeatError(from, req, code, out)
		return
	}
	// Assignments are replaced, never changed in place: keeping the old map
	// is enough to tell whether it changed.
	before := m.Assigned

	// 1. Update the member. The request's endpoint and client id are the
	// member's from now on; a classic member that heartbeats this way has
	// switched protocols.
	oldSubscription := m.subscription
	m.endpoint, m.clientID, m.classic = from, from.Process, nil
	if req.InstanceID != "" {
		m.instanceID = req.InstanceID
	}
	if req.RebalanceTimeoutMs != -1 {
		m.rebalanceTimeout = fromMs(req.RebalanceTimeoutMs)
	}
	if req.ServerAssignor != "" {
		g.setServerAssignor(m, req.ServerAssignor)
	}
	if req.SubscribedTopicNames != nil {
		m.subscription = g.subscriptionOf(req.SubscribedTopicNames)
	}
	// A record the group handed out is in it already: only a new one
	// needs looking up.
	if !m.inGroup && g.byID[m.id] == nil {
		g.addMember(m)
		c.noteMemberAdded(m, out)
	}
	c.updateGroupEpochAndTarget(env, m, !slices.Equal(oldSubscription, m.subscription), out)

	// 3. Reconcile the member with its target.
	if code := c.maybeReconcile(env, m, req.TopicPartitions, req.TopicPartitions != nil, out); code != None {
		c.replyHeartbeatError(from, req, code, out)
		return
	}
	c.scheduleSessionTimeout(env, m, c.cfg.SessionTimeout, out)

	resp := ConsumerGroupHeartbeatResponse{CorrelationID: req.CorrelationID, ErrorCode: None, MemberID: m.id,
		MemberEpoch: m.Epoch, HeartbeatIntervalMs: toMs(c.cfg.HeartbeatInterval)}
	if req.isFullRequest() || !before.Equal(m.Assigned) {
		resp.Assignment = m.Assigned.Clone()
	}
	out.Send(from, c.responses.New(resp))
}

// getOrMaybeSubscribeDynamicMember is getOrMaybeSubscribeDynamicConsumerGroupMember
// for a consumer-protocol member: an unknown id may only join, and a known
// member's epoch is checked.
func (c *Coordinator) getOrMaybeSubscribeDynamicMember(id string, epoch int32, owned kafka.Assignment, join bool) (*member, classic.ErrorCode) {
	if m := c.consumer.byID[id]; m != nil {
		return m, checkMemberEpoch(m, epoch, owned)
	}
	if !join {
		return nil, UnknownMemberID
	}
	return newMember(id), None
}

// getOrMaybeSubscribeStaticMember is getOrMaybeSubscribeStaticConsumerGroupMember.
// A joining static member with an instance id already in the group
// replaces the previous incarnation, which must have left with epoch -2
// unless either of them speaks the classic protocol.
func (c *Coordinator) getOrMaybeSubscribeStaticMember(from sim.Endpoint, id, instanceID string, epoch int32, owned kafka.Assignment, join, useClassicProtocol bool, out *sim.Effects) (*member, classic.ErrorCode) {
	g := c.consumer
	existing := g.staticMember(instanceID)
	if join {
		if existing == nil {
			return newMember(id), None
		}
		if !useClassicProtocol && !existing.useClassicProtocol() && existing.Epoch != LeaveGroupStaticMemberEpoch {
			// throwIfInstanceIdIsUnreleased
			return nil, UnreleasedInstanceID
		}
		return c.replaceStaticMember(existing, id, from, out), None
	}
	switch {
	case existing == nil:
		return nil, UnknownMemberID
	case existing.id != id:
		return nil, FencedInstanceID
	}
	if useClassicProtocol {
		return existing, None
	}
	return existing, checkMemberEpoch(existing, epoch, owned)
}

// replaceStaticMember swaps in a returning static member; the old id is
// gone, its timers with it.
func (c *Coordinator) replaceStaticMember(old *member, newID string, from sim.Endpoint, out *sim.Effects) *member {
	if old.id != newID {
		c.cancelTimers(old, out)
	}
	c.noteMemberRemoved(old, "replaced by static member "+newID, out)
	n := c.consumer.replaceMember(old, newID)
	n.endpoint = from
	c.noteMemberAdded(n, out)
	return n
}

func newMember(id string) *member {
	return &member{id: id, Member: reconcile.Member{State: reconcile.Stable, Assigned: kafka.Assignment{}, PendingRevocation: kafka.Assignment{}}}
}

// checkMemberEpoch is throwIfConsumerGroupMemberEpochIsInvalid: an epoch
// ahead of the coordinator's is fenced; one behind is fenced too, unless it
// is the member's previous epoch and the member owns no more than it is
// assigned — the response that moved it on was lost.
func checkMemberEpoch(m *member, received int32, owned kafka.Assignment) classic.ErrorCode {
	switch {
	case received > m.Epoch:
		return FencedMemberEpoch
	case received < m.Epoch:
		if received != m.PreviousEpoch || owned == nil || owned.Minus(m.Assigned).Size() > 0 {
			return FencedMemberEpoch
		}
	}
	return None
}

// updateGroupEpochAndTarget is steps 1 and 2 of a heartbeat or classic join:
// after member m changed, bump the group epoch if its subscription did or
// the subscription metadata changed, then compute a new target if the group
// epoch is ahead of it.
func (c *Coordinator) updateGroupEpochAndTarget(env sim.CoordinatorEnv, m *member, subscriptionChanged bool, out *sim.Effects) {
	g := c.consumer
	if subscriptionChanged || g.metadataExpired {
		meta := g.computeSubscriptionMetadata(env.Metadata)
		bump := subscriptionChanged
		reason := "member " + m.id + " subscribed to " + strings.Join(m.subscription, ",")
		if !topicsEqual(meta, g.subscriptionMetadata) {
			if !bump {
				reason = "subscription metadata changed"
			}
			bump = true
			g.subscriptionMetadata = meta
		}
		g.metadataExpired = false
		if bump {
			c.bumpGroupEpoch(reason, out)
		}
	}
	if g.groupEpoch > g.targetEpoch && g.mayComputeTarget(env.Now) {
		g.updateTargetAssignment(env.Now, env.Release)
	}
	// The request's records are applied: the member is in the map now.
	g.fresh = nil
}

// maybeReconcile is GroupMetadataManager.maybeReconcile: move the member
// towards its target with CurrentAssignmentBuilder (package reconcile) and
// keep the rebalance timeout armed while a consumer-protocol member has
// partitions to revoke. owned is what the member reported (ownedKnown is
// false when the request did not say).
func (c *Coordinator) maybeReconcile(env sim.CoordinatorEnv, m *member, owned kafka.Assignment, ownedKnown bool, out *sim.Effects) classic.ErrorCode {
	g := c.consumer
	if m.isReconciledTo(g.targetEpoch) {
		return None
	}
	if !c.alwaysReconcile && m.State == reconcile.Stable && len(m.PendingRevocation) == 0 && m.Assigned.Equal(g.targetOf(m)) {
		// What Reconcile returns for a stable member whose target is what
		// it holds (CurrentAssignmentBuilder.computeNextAssignment with
		// nothing to revoke or give), which after an epoch bump is most
		// members: the target epoch, the same partitions.
		g.advanceEpoch(m, g.targetEpoch)
		if !m.useClassicProtocol() {
			out.CancelTimer(m.timer(timerRebalance))
		}
		return None
	}
	next, err := reconcile.Reconcile(reconcile.Input{
		Member:         m.Member,
		TargetEpoch:    g.targetEpoch,
		Target:         g.targetOf(m),
		PartitionEpoch: g.currentPartitionEpoch,
		Owned:          owned,
		OwnedKnown:     ownedKnown,
		Version:        reconcile.Kafka40,
	})
	if err != nil {
		return FencedMemberEpoch
	}
	if sameMember(m.Member, next) {
		return None
	}
	g.setAssignment(m, next)
	if !m.useClassicProtocol() {
		if m.State == reconcile.UnrevokedPartitions {
			c.scheduleRebalanceTimeout(env, m, out)
		} else {
			out.CancelTimer(m.timer(timerRebalance))
		}
	}
	return None
}

func sameMember(a, b reconcile.Member) bool {
	return a.State == b.State && a.Epoch == b.Epoch && a.PreviousEpoch == b.PreviousEpoch &&
		a.Assigned.Equal(b.Assigned) && a.PendingRevocation.Equal(b.PendingRevocation)
}

// scheduleSessionTimeout (re)arms a member's session timer.
func (c *Coordinator) scheduleSessionTimeout(env sim.CoordinatorEnv, m *member, d time.Duration, out *sim.Effects) {
	out.SetTimer(m.timer(timerSession), env.Now+d)
}

// scheduleRebalanceTimeout arms the timer that fences a member still at this
// epoch when its rebalance timeout (max.poll.interval.ms) runs out
// (scheduleConsumerGroupRebalanceTimeout).
func (c *Coordinator) scheduleRebalanceTimeout(env sim.CoordinatorEnv, m *member, out *sim.Effects) {
	m.rebalanceTimeoutEpoch = m.Epoch
	out.SetTimer(m.timer(timerRebalance), env.Now+m.rebalanceTimeout)
}

func (c *Coordinator) onSessionTimeout(env sim.CoordinatorEnv, id string, out *sim.Effects) {
	c.fenceByTimer(env, id, "the member session expired", out)
}

func (c *Coordinator) onRebalanceTimeout(env sim.CoordinatorEnv, id string, out *sim.Effects) {
	m := c.consumer.byID[id]
	if m == nil || m.Epoch != m.rebalanceTimeoutEpoch {
		return // the member moved on or is gone
	}
	c.consumerGroupFenceMember(env, m, "it failed to revoke its partitions within the rebalance timeout", out)
}

// fenceByTimer is consumerGroupFenceMemberOperation: fence the member if it
// is still there.
func (c *Coordinator) fenceByTimer(env sim.CoordinatorEnv, id, reason string, out *sim.Effects) {
	if m := c.consumer.byID[id]; m != nil {
		c.consumerGroupFenceMember(env, m, reason, out)
	}
}

// consumerGroupLeave handles epochs -1 and -2 (GroupMetadataManager.consumerGroupLeave).
func (c *Coordinator) consumerGroupLeave(env sim.CoordinatorEnv, from sim.Endpoint, req *ConsumerGroupHeartbeatRequest, out *sim.Effects) {
	if c.consumer == nil {
		c.replyHeartbeatError(from, req, GroupIDNotFound, out)
		return
	}
	g := c.consumer
	var m *member
	if req.InstanceID == "" {
		if m = g.byID[req.MemberID]; m == nil {
			c.replyHeartbeatError(from, req, UnknownMemberID, out)
			return
		}
	} else {
		switch m = g.staticMember(req.InstanceID); {
		case m == nil:
			c.replyHeartbeatError(from, req, UnknownMemberID, out)
			return
		case m.id != req.MemberID:
			c.replyHeartbeatError(from, req, FencedInstanceID, out)
			return
		}
	}
	if req.InstanceID != "" && req.MemberEpoch == LeaveGroupStaticMemberEpoch {
		c.consumerGroupStaticMemberGroupLeave(m, out)
	} else {
		c.consumerGroupFenceMember(env, m, "the member left the group", out)
	}
	out.Send(from, c.responses.New(ConsumerGroupHeartbeatResponse{CorrelationID: req.CorrelationID, ErrorCode: None, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch}))
}

// consumerGroupStaticMemberGroupLeave keeps a static member that leaves
// temporarily: epoch -2, nothing pending revocation, its assignment kept
// (its partitions stay claimed, at epoch -2, so nobody else gets them) and
// no group epoch bump. Its session timer keeps running: if it does not come
// back in time, it is fenced.
//
// For the ledger the member is gone (NoteMemberRemoved): it said it left,
// so whatever its process still believes it owns is a zombie's belief, and
// the partitions it was revoking are free. Its return, or its fencing, adds
// no second removal.
func (c *Coordinator) consumerGroupStaticMemberGroupLeave(m *member, out *sim.Effects) {
	c.noteMemberRemoved(m, "static member left temporarily (epoch -2)", out)
	next := m.Member
	next.Assigned = m.Assigned.Clone()
	next.PendingRevocation = kafka.Assignment{}
	next.Epoch = LeaveGroupStaticMemberEpoch
	c.consumer.setAssignment(m, next)
}

// consumerGroupFenceMember removes a member — it left, or a timer fenced it
// — and bumps the group epoch; its partitions are free at once. If it was
// the last member speaking the consumer protocol, the group goes back to
// being a classic group instead (online downgrade).
func (c *Coordinator) consumerGroupFenceMember(env sim.CoordinatorEnv, m *member, reason string, out *sim.Effects) {
	if c.validateOnlineDowngradeWithFencedMember(m) {
		c.convertToClassicGroup(env, m, nil, reason, out)
		return
	}
	c.removeMemberAndBump(env, m, reason, out)
}

// removeMemberAndBump removes a member, refreshes the subscription metadata
// without it and bumps the group epoch.
func (c *Coordinator) removeMemberAndBump(env sim.CoordinatorEnv, m *member, reason string, out *sim.Effects) {
	g := c.consumer
	g.removeMember(m)
	c.cancelTimers(m, out)
	c.noteMemberRemoved(m, reason, out)
	g.subscriptionMetadata = g.computeSubscriptionMetadata(env.Metadata)
	c.bumpGroupEpoch("member "+m.id+" removed: "+reason, out)
}
