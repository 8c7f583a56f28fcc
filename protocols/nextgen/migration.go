package nextgen

import (
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/nextgen/reconcile"
	"github.com/rebalsim/rebalsim/sim"
)

// Online migration between the classic and the consumer protocol
// (reference §5.2, KIP-848 "online migration"): the first
// ConsumerGroupHeartbeat converts a classic group into a consumer group that
// keeps every classic member, with its assignment, as a member of the
// current epoch; when the last member speaking the consumer protocol goes,
// the group turns back into a classic group and rebalances.

// upgradeAllowed and downgradeAllowed read group.consumer.migration.policy
// (ConsumerGroupMigrationPolicy).
func (c *Coordinator) upgradeAllowed() bool {
	return c.cfg.MigrationPolicy == sim.MigrationBidirectional || c.cfg.MigrationPolicy == sim.MigrationUpgrade
}

func (c *Coordinator) downgradeAllowed() bool {
	return c.cfg.MigrationPolicy == sim.MigrationBidirectional || c.cfg.MigrationPolicy == sim.MigrationDowngrade
}

// deleteEmptyClassicGroup replaces an empty classic group by a new consumer
// group (maybeDeleteEmptyClassicGroup); this is always allowed.
func (c *Coordinator) deleteEmptyClassicGroup(env sim.CoordinatorEnv, out *sim.Effects) {
	c.classic.CancelTimers(out)
	g := newConsumerGroup(c.cfg, c.assignors, c.handles)
	// From Kafka 4.3 a new group starts at epoch 1 with an empty target
	// of epoch 1 (KAFKA-20268: GroupMetadataManager initializes groups at
	// epoch 1 so that the first computed assignment is epoch 2, and a
	// member joining a new group reconciles towards the empty epoch 1
	// while it waits for it); before, at epoch 0.
	if sim.ReleaseAtLeast(env.Release, "4.3") {
		g.groupEpoch, g.targetEpoch = 1, 1
	}
	c.becomeConsumer(g, out)
}

// validateOnlineUpgrade: the policy must allow it and the group must fit
// group.consumer.max.size. (Every classic group here uses the consumer
// embedded protocol.)
func (c *Coordinator) validateOnlineUpgrade() bool {
	return c.upgradeAllowed() && (c.cfg.MaxSize <= 0 || len(c.classic.Members()) <= c.cfg.MaxSize)
}

// convertToConsumerGroup is GroupMetadataManager.convertToConsumerGroup with
// ConsumerGroup.fromClassicGroup: requests parked in a join or sync phase
// are answered REBALANCE_IN_PROGRESS; the group epoch and the target epoch
// become the classic generation; every classic member becomes a STABLE
// member at that epoch, assigned (and targeted) its last classic
// assignment, with a session timer of its classic session timeout. Member
// ids do not change, so no member leaves or joins.
func (c *Coordinator) convertToConsumerGroup(env sim.CoordinatorEnv, out *sim.Effects) {
	cg := c.classic
	gen := cg.Generation()
	for _, m := range cg.Members() {
		if m.AwaitingJoin {
			out.Send(m.Endpoint, &classic.JoinGroupResponse{Error: classic.RebalanceInProgress, MemberID: m.ID, Generation: -1})
		}
		if m.AwaitingSync {
			out.Send(m.Endpoint, &classic.SyncGroupResponse{Error: classic.RebalanceInProgress})
		}
	}
	cg.CancelTimers(out)

	g := newConsumerGroup(c.cfg, c.assignors, c.handles)
	g.groupEpoch = gen
	g.setTarget(gen, nil, nil)
	for _, cm := range cg.Members() {
		assigned := cm.Assignment.Clone()
		m := &member{
			id: cm.ID, instanceID: cm.InstanceID, clientID: cm.ClientID, endpoint: cm.Endpoint,
			rebalanceTimeout: cm.RebalanceTimeout,
			subscription:     g.subscriptionOf(memberSubscription(cm, cg.ProtocolName()).Topics),
			Member:           reconcile.Member{State: reconcile.Stable, Epoch: gen, PreviousEpoch: gen, Assigned: assigned, PendingRevocation: kafka.Assignment{}},
			classic:          &classicMetadata{sessionTimeout: cm.SessionTimeout, protocols: slices.Clone(cm.Protocols)},
		}
		g.addMember(m)
		m.target = assigned.Clone()
	}
	// The conversion's records are applied before any target is computed.
	g.fresh = nil
	// Like any new consumer group, the converted group has no subscription
	// metadata yet: the first heartbeat computes it and, finding it changed,
	// bumps the epoch, so an upgrade always leads to a new target.
	c.becomeConsumer(g, out)
	for _, m := range g.members {
		c.scheduleSessionTimeout(env, m, m.classic.sessionTimeout, out)
	}
}

// memberSubscription is the subscription a classic member sent for the
// group's protocol (ClassicGroupMember.metadata), or its first one if the
// group never chose a protocol.
func memberSubscription(m *classic.Member, protocol string) classic.Subscription {
	for _, p := range m.Protocols {
		if p.Name == protocol {
			return p.Metadata
		}
	}
	return classicSubscription(m.Protocols)
}

// validateOnlineDowngradeWithFencedMember: the member going is the last one
// speaking the consumer protocol, at least one member stays, the policy
// allows a downgrade and the rest fits group.max.size.
func (c *Coordinator) validateOnlineDowngradeWithFencedMember(m *member) bool {
	g := c.consumer
	return g.allMembersUseClassicProtocolExcept(m.id) && len(g.members) > 1 && c.downgradeAllowed() &&
		(c.cfg.MaxSize <= 0 || len(g.members)-1 <= c.cfg.MaxSize)
}

// validateOnlineDowngradeWithReplacedMember: a consumer-protocol static
// member was just replaced by a classic one, and every other member speaks
// the classic protocol (validateOnlineDowngradeWithReplacedMemberId). The
// replacement has already happened here, so the check is on the group with
// the new member in it.
func (c *Coordinator) validateOnlineDowngradeWithReplacedMember(old, joining *member) bool {
	g := c.consumer
	return !old.useClassicProtocol() && joining.useClassicProtocol() && g.numClassicProtocolMembers() == len(g.members) &&
		c.downgradeAllowed() && (c.cfg.MaxSize <= 0 || len(g.members) <= c.cfg.MaxSize)
}

// convertToClassicGroup is GroupMetadataManager.convertToClassicGroup with
// ClassicGroup.fromConsumerGroup: a STABLE classic group at generation =
// group epoch, whose members are the remaining ones (the joining one last)
// with their target assignments and their classic protocols. After a
// member's departure (joining == nil) a classic rebalance starts at once.
func (c *Coordinator) convertToClassicGroup(env sim.CoordinatorEnv, leaving, joining *member, reason string, out *sim.Effects) {
	g := c.consumer
	if joining == nil {
		// The leaving member is still in the group; it is simply not carried over.
		c.noteMemberRemoved(leaving, reason, out)
	}
	c.cancelTimers(leaving, out)
	var members []*classic.Member
	var last *classic.Member
	// ClassicGroup.fromConsumerGroup adds the members in the consumer
	// group's map order, so the first of them leads.
	for _, m := range g.timelineOrder(false) {
		c.cancelTimers(m, out)
		if m == leaving {
			continue
		}
		cm := &classic.Member{ID: m.id, InstanceID: m.instanceID, ClientID: m.clientID, Endpoint: m.endpoint,
			SessionTimeout: m.classic.sessionTimeout, RebalanceTimeout: m.rebalanceTimeout,
			Protocols: slices.Clone(m.classic.protocols), Assignment: g.targetOf(m).Clone()}
		if m == joining {
			last = cm
			continue
		}
		members = append(members, cm)
	}
	if last != nil {
		members = append(members, last)
	}
	c.becomeClassic(classic.FromConsumerGroup(env, c.cfg, g.groupEpoch, members, c.nextID, c.handles, joining == nil, out), out)
}
