package sim

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// DefaultConsumerConfig returns Kafka's client defaults (reference §1.1)
// with rebalsim's defaults for what Kafka leaves to the application:
// processing speed and callback durations (ConsumerSettingTable).
func DefaultConsumerConfig(clientID string) ConsumerConfig {
	c := ConsumerConfig{ClientID: clientID}
	for _, s := range consumerSettingTable() {
		s.setDefault(&c)
	}
	return c
}

// Close membership operations (KIP-1092's GroupMembershipOperation): by
// default a dynamic member leaves the group on close() and a static one
// stays until its session times out; leave_group makes both leave,
// remain_in_group makes both stay.
const (
	CloseDefault       = "default"
	CloseLeaveGroup    = "leave_group"
	CloseRemainInGroup = "remain_in_group"
)

// CloseMemberships lists them.
func CloseMemberships() []string { return []string{CloseDefault, CloseLeaveGroup, CloseRemainInGroup} }

// LeavesOnClose reports whether a consumer sends a leave on close():
// ConsumerCoordinator.maybeLeaveGroup (classic) and
// ConsumerMembershipManager.isLeavingGroup (consumer protocol).
func (c ConsumerConfig) LeavesOnClose() bool {
	switch c.CloseMembership {
	case CloseLeaveGroup:
		return true
	case CloseRemainInGroup:
		return false
	}
	return c.GroupInstanceID == ""
}

// Protocol shorthands (DESIGN.md): the run's protocol fills in what neither
// the member nor the defaults say.
const (
	ProtocolEager       = "eager"
	ProtocolCooperative = "cooperative"
	ProtocolNextgen     = "nextgen"
)

// The values of group.protocol.
const (
	GroupProtocolClassic  = "classic"
	GroupProtocolConsumer = "consumer"
)

// GroupProtocols lists the values of group.protocol.
func GroupProtocols() []string { return []string{GroupProtocolClassic, GroupProtocolConsumer} }

// Protocol is one protocol shorthand: the name a run, a scenario's
// protocols: list and a member's protocol: key use, and the consumer
// configuration it stands for.
type Protocol struct {
	Name string
	// GroupProtocol is the group.protocol the shorthand sets.
	GroupProtocol string
	// Assignors is the partition.assignment.strategy it sets; nil leaves
	// the one below in place (the consumer protocol has no client assignor).
	Assignors []string
	// Meaning says in a line what the protocol is.
	Meaning string
}

// ProtocolTable lists the protocol shorthands in their canonical order,
// the order runs compare them in. The returned slice is the caller's.
func ProtocolTable() []Protocol {
	rows := slices.Clone(protocolTable())
	for i := range rows {
		rows[i].Assignors = slices.Clone(rows[i].Assignors)
	}
	return rows
}

// protocolTable is built once: every member incarnation applies a
// shorthand from it. Its rows are never changed.
var protocolTable = sync.OnceValue(func() []Protocol {
	return []Protocol{
		{ProtocolEager, GroupProtocolClassic, []string{"range"},
			"classic group protocol, EAGER rebalancing: every member revokes everything at each rebalance"},
		{ProtocolCooperative, GroupProtocolClassic, []string{"cooperative-sticky"},
			"classic group protocol, COOPERATIVE rebalancing (KIP-429): only moving partitions are revoked, in a second round"},
		{ProtocolNextgen, GroupProtocolConsumer, nil,
			"the consumer group protocol (KIP-848): the coordinator computes targets, members converge by heartbeat"},
	}
})

// Protocols lists the protocol shorthands in their canonical order.
func Protocols() []string {
	var names []string
	for _, p := range protocolTable() {
		names = append(names, p.Name)
	}
	return names
}

// Names are the names a set of protocol models registers: what a scenario
// may name in protocols:, assignors:, remote_assignor and group.assignor.
type Names struct {
	// Protocols are the shorthands the models implement, in canonical order.
	Protocols []string
	// ClientAssignors are the partition.assignment.strategy names.
	ClientAssignors []string
	// ServerAssignors are the consumer protocol's server assignors
	// (group.remote.assignor), the group's default first.
	ServerAssignors []string
}

func applyShorthand(c *ConsumerConfig, protocol string) error {
	for _, p := range protocolTable() {
		if p.Name != protocol {
			continue
		}
		c.GroupProtocol = p.GroupProtocol
		if p.Assignors != nil {
			c.Assignors = slices.Clone(p.Assignors)
		}
		return nil
	}
	return fmt.Errorf("unknown protocol %q (want %s)", protocol, strings.Join(Protocols(), ", "))
}

// Apply lays s over c: the shorthand first, then every explicit key.
func (s ConsumerSettings) Apply(c *ConsumerConfig) error { return s.apply(c) }

// apply is Apply without the copy of s, which would escape to the heap.
func (s *ConsumerSettings) apply(c *ConsumerConfig) error {
	for _, row := range consumerSettingTable() {
		if err := row.apply(s, c); err != nil {
			return err
		}
	}
	return nil
}

// resolveConfig computes a member's configuration: Kafka's defaults, then
// the run's protocol shorthand, then the scenario defaults, then the
// member's own settings, then every `set:` patch applied so far.
func ResolveConfig(sc *Scenario, protocol string, m MemberSpec, patches []ConsumerSettings) (ConsumerConfig, error) {
	c := DefaultConsumerConfig(m.ID)
	if err := applyShorthand(&c, protocol); err != nil {
		return c, err
	}
	layers := append([]ConsumerSettings{sc.Defaults, m.Settings}, patches...)
	for i := range layers {
		if err := layers[i].apply(&c); err != nil {
			return c, fmt.Errorf("member %s: %w", m.ID, err)
		}
	}
	if c.Subscription == nil {
		for _, t := range sc.Topics {
			c.Subscription = append(c.Subscription, t.Name)
		}
	}
	return c, nil
}

// ResolveGroupConfig is ResolveGroupConfigFor under DefaultKafkaVersion.
func ResolveGroupConfig(g GroupConfig) GroupConfig {
	return ResolveGroupConfigFor(g, DefaultKafkaVersion)
}

// ResolveGroupConfigFor fills the zero fields of g with Kafka's defaults
// in release ("" is DefaultKafkaVersion), except where zero is a
// meaningful setting (InitialRebalanceDelay: no delay). It is the one
// place a release's defaults are derived, for a scenario loaded from a
// file and one built in Go alike: a field the scenario leaves zero takes
// the release's default (AssignmentInterval), an explicit setting wins.
// In the result, AssignmentInterval 0 is off.
func ResolveGroupConfigFor(g GroupConfig, release string) GroupConfig {
	for _, row := range groupSettingTable() {
		if !row.ZeroIsValue() && row.IsZero(&g) {
			row.Put(&g, row.DefaultFor(release))
		}
	}
	if g.AssignmentInterval < 0 {
		g.AssignmentInterval = 0
	}
	return g
}
