package sim

import (
	"fmt"
	"slices"
	"time"
)

// DefaultConsumerConfig returns Kafka's client defaults (reference §1.1)
// with rebalsim's defaults for what Kafka leaves to the application:
// processing speed and callback durations.
func DefaultConsumerConfig(clientID string) ConsumerConfig {
	return ConsumerConfig{
		ClientID:           clientID,
		GroupProtocol:      "classic",
		Assignors:          []string{"range", "cooperative-sticky"},
		SessionTimeout:     45 * time.Second,
		HeartbeatInterval:  3 * time.Second,
		MaxPollInterval:    5 * time.Minute,
		RequestTimeout:     30 * time.Second,
		RetryBackoff:       100 * time.Millisecond,
		EnableAutoCommit:   true,
		AutoCommitInterval: 5 * time.Second,
		MetadataMaxAge:     5 * time.Minute,
		MaxPollRecords:     500,
		ProcessingRate:     2000,
		CommitLatency:      5 * time.Millisecond,
	}
}

// Protocol shorthands (DESIGN.md): the run's protocol fills in what neither
// the member nor the defaults say.
const (
	ProtocolEager       = "eager"
	ProtocolCooperative = "cooperative"
	ProtocolNextgen     = "nextgen"
)

// Protocols lists the protocol shorthands in their canonical order.
func Protocols() []string {
	return []string{ProtocolEager, ProtocolCooperative, ProtocolNextgen}
}

func applyShorthand(c *ConsumerConfig, protocol string) error {
	switch protocol {
	case ProtocolEager:
		c.GroupProtocol = "classic"
		c.Assignors = []string{"range"}
	case ProtocolCooperative:
		c.GroupProtocol = "classic"
		c.Assignors = []string{"cooperative-sticky"}
	case ProtocolNextgen:
		c.GroupProtocol = "consumer"
	default:
		return fmt.Errorf("unknown protocol %q (want eager, cooperative or nextgen)", protocol)
	}
	return nil
}

// Apply lays s over c: the shorthand first, then every explicit key.
func (s ConsumerSettings) Apply(c *ConsumerConfig) error {
	if s.Protocol != nil {
		if err := applyShorthand(c, *s.Protocol); err != nil {
			return err
		}
	}
	setString(&c.GroupProtocol, s.GroupProtocol)
	if s.Assignors != nil {
		c.Assignors = slices.Clone(*s.Assignors)
	}
	setString(&c.RemoteAssignor, s.RemoteAssignor)
	if s.Static != nil {
		if *s.Static {
			c.GroupInstanceID = c.ClientID
		} else {
			c.GroupInstanceID = ""
		}
	}
	setString(&c.GroupInstanceID, s.GroupInstanceID)
	setDuration(&c.SessionTimeout, s.SessionTimeout)
	setDuration(&c.HeartbeatInterval, s.HeartbeatInterval)
	setDuration(&c.MaxPollInterval, s.MaxPollInterval)
	setDuration(&c.RequestTimeout, s.RequestTimeout)
	setDuration(&c.RetryBackoff, s.RetryBackoff)
	if s.EnableAutoCommit != nil {
		c.EnableAutoCommit = *s.EnableAutoCommit
	}
	setDuration(&c.AutoCommitInterval, s.AutoCommitInterval)
	setDuration(&c.MetadataMaxAge, s.MetadataMaxAge)
	if s.MaxPollRecords != nil {
		c.MaxPollRecords = *s.MaxPollRecords
	}
	if s.ProcessingRate != nil {
		c.ProcessingRate = *s.ProcessingRate
	}
	setDuration(&c.CommitLatency, s.CommitLatency)
	setDuration(&c.RevokeCallback, s.RevokeCallback)
	setDuration(&c.AssignCallback, s.AssignCallback)
	setDuration(&c.LostCallback, s.LostCallback)
	if s.RebalanceListener != nil {
		c.RebalanceListener = *s.RebalanceListener
	}
	if s.Subscription != nil {
		c.Subscription = slices.Clone(*s.Subscription)
	}
	return nil
}

func setString(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

func setDuration(dst *time.Duration, v *time.Duration) {
	if v != nil {
		*dst = *v
	}
}

// resolveConfig computes a member's configuration: Kafka's defaults, then
// the run's protocol shorthand, then the scenario defaults, then the
// member's own settings, then every `set:` patch applied so far.
func resolveConfig(sc *Scenario, protocol string, m MemberSpec, patches []ConsumerSettings) (ConsumerConfig, error) {
	c := DefaultConsumerConfig(m.ID)
	if err := applyShorthand(&c, protocol); err != nil {
		return c, err
	}
	layers := append([]ConsumerSettings{sc.Defaults, m.Settings}, patches...)
	for _, l := range layers {
		if err := l.Apply(&c); err != nil {
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

// ResolveGroupConfig fills the zero fields of g with Kafka's defaults, except
// InitialRebalanceDelay, where zero is a meaningful setting (no delay).
func ResolveGroupConfig(g GroupConfig) GroupConfig {
	d := DefaultGroupConfig()
	if g.HeartbeatInterval == 0 {
		g.HeartbeatInterval = d.HeartbeatInterval
	}
	if g.SessionTimeout == 0 {
		g.SessionTimeout = d.SessionTimeout
	}
	if g.Assignor == "" {
		g.Assignor = d.Assignor
	}
	if g.MigrationPolicy == "" {
		g.MigrationPolicy = d.MigrationPolicy
	}
	if g.MinSessionTimeout == 0 {
		g.MinSessionTimeout = d.MinSessionTimeout
	}
	if g.MaxSessionTimeout == 0 {
		g.MaxSessionTimeout = d.MaxSessionTimeout
	}
	return g
}
