package classic

import (
	"slices"

	"github.com/rebalsim/rebalsim/sim"
)

// What the KIP-848 coordinator (package nextgen) needs to convert a classic
// group into a consumer group and back (GroupMetadataManager
// .convertToConsumerGroup and .convertToClassicGroup). Nothing here changes
// how a classic group behaves.

// NextID is the counter behind the member ids the group has minted.
func (g *Group) NextID() int { return g.nextID }

// ContinueIDs makes the group mint ids after n, so that ids stay unique
// across conversions between group types.
func (g *Group) ContinueIDs(n int) { g.nextID = max(g.nextID, n) }

// ShareHandles makes the group name its members' timers by the handles of
// h, the coordinator's, so that a member id keeps its handle across
// conversions between group types. Call it before the group has members.
func (g *Group) ShareHandles(h *sim.MemberHandles) { g.handles = h }

// PendingMemberIDs lists, sorted, the ids handed out with MEMBER_ID_REQUIRED
// that have not joined yet.
func (g *Group) PendingMemberIDs() []string {
	ids := make([]string, 0, len(g.pending))
	for id := range g.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// FromConsumerGroup builds the classic group a consumer group is downgraded
// to (ClassicGroup.fromConsumerGroup): STABLE at the given generation, with
// members in the given order (the first is the leader, as ClassicGroup.add
// makes it) holding the assignments given, the protocol voted as usual, and
// every member's session timer armed afresh. nextID continues the id
// counter, and handles is the coordinator's numbering of member ids
// (ShareHandles). With rebalance set a rebalance starts at once, as it does when
// the downgrade follows a member's departure; a downgrade caused by a
// static member's replacement does not rebalance.
func FromConsumerGroup(env sim.CoordinatorEnv, cfg sim.GroupConfig, generation int32, members []*Member, nextID int, handles *sim.MemberHandles, rebalance bool, out *sim.Effects) *Group {
	g := NewGroup(cfg)
	g.state, g.generation, g.nextID, g.handles = Stable, generation, nextID, handles
	for _, m := range members {
		ps := m.Protocols
		m.Protocols = nil
		g.setProtocols(m, ps)
		m.setID(m.ID)
		g.putMember(m)
		if m.InstanceID != "" {
			g.static[m.InstanceID] = m
		}
	}
	if len(members) > 0 {
		g.leader = members[0].ID
	}
	g.protocol = g.selectProtocol()
	for _, m := range members {
		g.scheduleSession(env, m, m.SessionTimeout, out)
	}
	if rebalance {
		g.prepareRebalance(env, "downgrade from consumer to classic", out)
	}
	return g
}
