package nextgen

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/classic/assignor"
	"github.com/rebalsim/rebalsim/protocols/cooperative"
	"github.com/rebalsim/rebalsim/sim"
)

// Property tests: random groups under random disturbances, run through the
// whole simulator with every model wrapped in a checker that verifies the
// protocol's invariants after every single input.

// checkedModels builds checked coordinators and clients. Classic members use
// cooperative-sticky, so that mixed groups exercise the migration paths.
type checkedModels struct {
	t      *testing.T
	failed *bool
	label  string
	// mixed is set once the group had classic members.
	mixed *bool
}

func (m checkedModels) NewCoordinator(cfg sim.GroupConfig) sim.GroupCoordinator {
	return &checkedCoordinator{Coordinator: NewCoordinator(cfg), t: m.t, failed: m.failed, label: m.label, mixed: m.mixed, lastEpoch: map[string]int32{}}
}

// Names is never asked: these models run scenarios built in Go, which no
// loader checks.
func (m checkedModels) Names() sim.Names { return sim.Names{} }

func (m checkedModels) NewClient(self sim.Endpoint, cfg sim.ConsumerConfig) (sim.Client, error) {
	if cfg.GroupProtocol == "consumer" {
		return &checkedClient{Client: NewClient(self, cfg), t: m.t, failed: m.failed, label: m.label}, nil
	}
	return classic.NewClient(self, cfg, cooperative.Strategy{}, []assignor.Assignor{assignor.CooperativeSticky()}), nil
}

// epochMayGoBack: a member epoch only ever grows, except when a member
// (re)joins (0) or leaves (-1, -2).
func epochMayGoBack(to int32) bool {
	return to == JoinGroupMemberEpoch || to == LeaveGroupMemberEpoch || to == LeaveGroupStaticMemberEpoch
}

type checkedCoordinator struct {
	*Coordinator
	t         *testing.T
	failed    *bool
	label     string
	mixed     *bool
	lastEpoch map[string]int32
}

func (c *checkedCoordinator) fail(env sim.CoordinatorEnv, format string, a ...any) {
	if !*c.failed {
		*c.failed = true
		c.t.Errorf("%s at %s: %s", c.label, env.Now, fmt.Sprintf(format, a...))
	}
}

func (c *checkedCoordinator) Receive(env sim.CoordinatorEnv, from sim.Endpoint, msg sim.Message, out *sim.Effects) {
	c.Coordinator.Receive(env, from, msg, out)
	c.check(env)
}

func (c *checkedCoordinator) Timer(env sim.CoordinatorEnv, id sim.TimerID, out *sim.Effects) {
	c.Coordinator.Timer(env, id, out)
	c.check(env)
}

func (c *checkedCoordinator) MetadataChanged(env sim.CoordinatorEnv, out *sim.Effects) {
	c.Coordinator.MetadataChanged(env, out)
	c.check(env)
}

func (c *checkedCoordinator) check(env sim.CoordinatorEnv) {
	g := c.consumer
	if g == nil {
		if len(c.classic.Members()) > 0 {
			*c.mixed = true
		}
		clear(c.lastEpoch)
		return
	}
	if g.numClassicProtocolMembers() > 0 {
		*c.mixed = true
	}
	// Member epochs never go backwards.
	seen := map[string]bool{}
	for _, m := range g.members {
		seen[m.id] = true
		if last, ok := c.lastEpoch[m.id]; ok && m.Epoch < last && !epochMayGoBack(m.Epoch) {
			c.fail(env, "member %s went back from epoch %d to %d", m.id, last, m.Epoch)
		}
		c.lastEpoch[m.id] = m.Epoch
		if m.Epoch > g.groupEpoch {
			c.fail(env, "member %s is at epoch %d, ahead of the group epoch %d", m.id, m.Epoch, g.groupEpoch)
		}
	}
	for id := range c.lastEpoch {
		if !seen[id] {
			delete(c.lastEpoch, id)
		}
	}
	if g.targetEpoch > g.groupEpoch {
		c.fail(env, "target epoch %d ahead of group epoch %d", g.targetEpoch, g.groupEpoch)
	}
	// The count behind the group state matches a scan of the members.
	unreconciled := 0
	for _, m := range g.members {
		if !m.isReconciledTo(g.targetEpoch) {
			unreconciled++
		}
	}
	if unreconciled != g.unreconciled {
		c.fail(env, "%d members are not reconciled to target epoch %d, the group counts %d", unreconciled, g.targetEpoch, g.unreconciled)
	}
	// So do the counts behind the preferred server assignor.
	asked := map[string]int{}
	for _, m := range g.members {
		if m.serverAssignor != "" {
			asked[m.serverAssignor]++
		}
	}
	if !maps.Equal(asked, g.serverAssignors) {
		c.fail(env, "members ask for the server assignors %v, the group counts %v", asked, g.serverAssignors)
	}
	// Partition epochs are exactly the members' assigned and revoking
	// partitions, each claimed once, at its member's epoch.
	want := map[kafka.TopicPartition]int32{}
	for _, m := range g.members {
		for _, tp := range m.Assigned.Union(m.PendingRevocation).Partitions() {
			if _, dup := want[tp]; dup {
				c.fail(env, "%s is held by two members", tp)
			}
			want[tp] = m.Epoch
		}
	}
	held := g.partitionEpochs.held()
	if len(want) != len(held) {
		c.fail(env, "%d partition epochs for %d held partitions", len(held), len(want))
	}
	for tp, e := range want {
		if got, ok := held[tp]; !ok || got != e {
			c.fail(env, "partition epoch of %s is %d, its holder is at %d", tp, g.currentPartitionEpoch(tp), e)
		}
	}
	// A stable group's target holds every subscribed partition exactly once,
	// each with a subscriber, and every member holds its target.
	if !c.Stable() || g.isEmpty() {
		return
	}
	subscribers := g.subscribedTopicNames()
	owner := map[kafka.TopicPartition]string{}
	for _, m := range g.members {
		if !m.Assigned.Equal(g.targetOf(m)) || m.Epoch != g.targetEpoch {
			c.fail(env, "stable group, but %s holds %s at epoch %d, target %s at %d", m.id, m.Assigned, m.Epoch, g.targetOf(m), g.targetEpoch)
		}
		for _, tp := range g.targetOf(m).Partitions() {
			if prev, dup := owner[tp]; dup {
				c.fail(env, "%s is in the targets of %s and %s", tp, prev, m.id)
			}
			if !slices.Contains(m.subscription, tp.Topic) {
				c.fail(env, "%s targeted to %s, which does not subscribe to it", tp, m.id)
			}
			owner[tp] = m.id
		}
	}
	for _, t := range g.subscriptionMetadata {
		if subscribers[t.Name] == 0 {
			continue
		}
		for p := int32(0); p < t.Partitions; p++ {
			if _, ok := owner[kafka.TopicPartition{Topic: t.Name, Partition: p}]; !ok {
				c.fail(env, "stable group, but %s-%d is in nobody's target", t.Name, p)
			}
		}
	}
	if !g.metadataExpired && !topicsEqual(g.subscriptionMetadata, g.computeSubscriptionMetadata(env.Metadata)) {
		c.fail(env, "subscription metadata %v is stale: %v", g.subscriptionMetadata, g.computeSubscriptionMetadata(env.Metadata))
	}
}

type checkedClient struct {
	*Client
	t      *testing.T
	failed *bool
	label  string
	last   int32
}

func (c *checkedClient) check(env sim.ClientEnv) {
	e := c.memberEpoch
	if e < c.last && !epochMayGoBack(e) && !*c.failed {
		*c.failed = true
		c.t.Errorf("%s at %s: client %s went back from epoch %d to %d", c.label, env.Now, c.self.Process, c.last, e)
	}
	c.last = e
}

func (c *checkedClient) Start(env sim.ClientEnv, out *sim.Effects) {
	c.Client.Start(env, out)
	c.check(env)
}

func (c *checkedClient) Poll(env sim.ClientEnv, out *sim.Effects) {
	c.Client.Poll(env, out)
	c.check(env)
}

func (c *checkedClient) Receive(env sim.ClientEnv, msg sim.Message, out *sim.Effects) {
	c.Client.Receive(env, msg, out)
	c.check(env)
}

func (c *checkedClient) Timer(env sim.ClientEnv, id sim.TimerID, out *sim.Effects) {
	c.Client.Timer(env, id, out)
	c.check(env)
}

func (c *checkedClient) CallbackDone(env sim.ClientEnv, cb sim.Callback, out *sim.Effects) {
	c.Client.CallbackDone(env, cb, out)
	c.check(env)
}

func (c *checkedClient) Close(env sim.ClientEnv, out *sim.Effects) {
	c.Client.Close(env, out)
	c.check(env)
}

// randomScenario draws a group and a timeline of disturbances. Some runs
// start classic and migrate to the consumer protocol, some go the other way.
func randomScenario(r *rand.Rand) (*sim.Scenario, string) {
	sc := &sim.Scenario{Name: "random", Seed: r.Uint64() | 1, Duration: 6 * time.Minute,
		Network: sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistUniform, Min: time.Millisecond, Max: 20 * time.Millisecond}},
		Group:   sim.DefaultGroupConfig(),
	}
	topics := []string{"orders"}
	sc.Topics = append(sc.Topics, sim.TopicSpec{Name: "orders", Partitions: 1 + r.Int32N(16), Rate: 100})
	if r.IntN(3) == 0 {
		topics = append(topics, "payments")
		sc.Topics = append(sc.Topics, sim.TopicSpec{Name: "payments", Partitions: 1 + r.Int32N(8), Rate: 100})
	}
	if r.IntN(3) == 0 {
		sc.Group.Assignor = "range"
	}
	if r.IntN(5) == 0 {
		sc.Group.AssignmentInterval = time.Second
	}
	if r.IntN(4) == 0 {
		mp := 30 * time.Second
		sc.Defaults.MaxPollInterval = &mp
	}
	protocol := sim.ProtocolNextgen
	switch r.IntN(6) {
	case 0, 1:
		protocol = sim.ProtocolCooperative
	}
	n := 2 + r.IntN(5)
	var ids []string
	for i := 1; i <= n; i++ {
		m := sim.MemberSpec{ID: fmt.Sprintf("c%d", i)}
		if r.IntN(3) == 0 {
			st := true
			m.Settings.Static = &st
		}
		if r.IntN(4) == 0 {
			m.Start = time.Duration(r.Int64N(int64(60 * time.Second)))
		}
		if len(topics) > 1 && r.IntN(3) == 0 {
			sub := []string{topics[r.IntN(len(topics))]}
			m.Settings.Subscription = &sub
		}
		if r.IntN(4) == 0 {
			a := []string{"uniform", "range"}[r.IntN(2)]
			m.Settings.RemoteAssignor = &a
		}
		sc.Members = append(sc.Members, m)
		ids = append(ids, m.ID)
	}
	some := func() []string { return []string{ids[r.IntN(len(ids))]} }
	at := func() time.Duration { return 30*time.Second + time.Duration(r.Int64N(int64(4*time.Minute))) }
	for k := 2 + r.IntN(6); k > 0; k-- {
		ev := sim.Event{At: at(), Members: some()}
		switch r.IntN(9) {
		case 0:
			ev.Kind = sim.EventCrash
		case 1:
			ev.Kind, ev.For, ev.Graceful = sim.EventRestart, time.Duration(1+r.IntN(60))*time.Second, r.IntN(2) == 0
		case 2:
			ev.Kind, ev.For = sim.EventPause, time.Duration(1+r.IntN(70))*time.Second
		case 3:
			ev.Kind, ev.For = sim.EventStall, time.Duration(1+r.IntN(90))*time.Second
		case 4:
			ev.Kind, ev.For = sim.EventNetworkPartition, time.Duration(1+r.IntN(60))*time.Second
		case 5:
			ev.Kind = sim.EventLeave
		case 6:
			ev.Kind = sim.EventStart
		case 7:
			t := sc.Topics[r.IntN(len(sc.Topics))]
			ev.Kind, ev.Members, ev.Topic, ev.Partitions = sim.EventAddPartitions, nil, t.Name, t.Partitions+1+r.Int32N(4)
		case 8:
			ev.Kind, ev.Topics = sim.EventSubscribe, []string{topics[r.IntN(len(topics))]}
		}
		sc.Events = append(sc.Events, ev)
	}
	// A rolling switch of group.protocol: up from classic, or (sometimes)
	// down from consumer.
	switch {
	case protocol == sim.ProtocolCooperative:
		gp := "consumer"
		sc.Events = append(sc.Events, sim.Event{At: at(), Kind: sim.EventRollingRestart, Members: ids,
			Interval: time.Duration(5+r.IntN(30)) * time.Second, For: time.Duration(1+r.IntN(10)) * time.Second,
			Graceful: r.IntN(4) != 0, Set: sim.ConsumerSettings{GroupProtocol: &gp}})
	case r.IntN(4) == 0:
		gp := "classic"
		sc.Events = append(sc.Events, sim.Event{At: at(), Kind: sim.EventRollingRestart, Members: ids,
			Interval: time.Duration(5+r.IntN(30)) * time.Second, For: time.Duration(1+r.IntN(10)) * time.Second,
			Graceful: r.IntN(4) != 0, Set: sim.ConsumerSettings{GroupProtocol: &gp}})
	}
	slices.SortStableFunc(sc.Events, func(a, b sim.Event) int { return int(a.At - b.At) })
	return sc, protocol
}

// TestRandomGroupsKeepInvariants checks, after every input of every model:
// member epochs never go backwards (except to 0, -1, -2); partition epochs
// are exactly the members' holdings; a stable group's target holds every
// subscribed partition exactly once and every member holds its target. For
// runs that only ever had consumer-protocol members it also checks safety:
// no partition ever has two owners among current members. Groups with
// classic members are exempt from that last check: the classic protocol
// (a static member missing a join phase keeps its stale owned partitions in
// the leader's view) and the conversions (a downgrade hands members their
// targets, which a member still revoking does not match) can both produce
// brief double ownership in Kafka as well.
func TestRandomGroupsKeepInvariants(t *testing.T) {
	eachRandomScenario(300, 40, rand.NewPCG(848, 2024), func(label string, sc *sim.Scenario, protocol string) {
		failed, mixed := false, false
		res, err := sim.Run(sc, checkedModels{t: t, failed: &failed, label: label, mixed: &mixed}, sim.RunOptions{Protocol: protocol})
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		for _, f := range res.Findings {
			if f.Kind == "double_ownership" && !mixed {
				t.Errorf("%s: %s at %.3fs: %s %v", label, f.Kind, f.At, f.Detail, f.Members)
			}
		}
	})
}

// eachRandomScenario calls f with runs random scenarios (short of them
// under -short) drawn from src, each with the label its failures name.
func eachRandomScenario(runs, short int, src rand.Source, f func(label string, sc *sim.Scenario, protocol string)) {
	if testing.Short() {
		runs = short
	}
	r := rand.New(src)
	for i := 0; i < runs; i++ {
		sc, protocol := randomScenario(r)
		f(fmt.Sprintf("run %d (%s, seed %d)", i, protocol, sc.Seed), sc, protocol)
	}
}

// subscribedTopicNames counts the subscribers of every topic any member
// subscribes to (ModernGroup.subscribedTopicNames).
func (g *consumerGroup) subscribedTopicNames() map[string]int {
	counts := map[string]int{}
	for _, m := range g.members {
		for _, t := range m.subscription {
			counts[t]++
		}
	}
	return counts
}
