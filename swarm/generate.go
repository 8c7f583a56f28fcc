package swarm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Generate builds the scenario of swarm seed seed: a group of 2 to a few
// hundred members under every protocol or a mixed group, settings drawn
// inside Kafka's ranges, a storm of disturbances of every kind on a
// jittery network, and a healing period after it. The same seed always
// gives the same Spec.
//
// Events never overlap on one member: a member is disturbed only while it
// runs and nothing else holds it (a pause, a restart), and started only
// while it is down, so every generated file means one thing.
func Generate(seed uint64) *Spec {
	g := &generator{rng: rand.New(rand.NewPCG(seed, 0x73776172)), s: &Spec{Seed: seed}}
	g.s.Name = fmt.Sprintf("swarm-%d", seed)
	g.topics()
	g.network()
	g.settings()
	g.members()
	g.storm()
	g.heal()
	return g.s
}

type generator struct {
	rng *rand.Rand
	s   *Spec
	// upgrade marks a group whose members may be rolled onto the consumer
	// protocol (a classic run of a uniform group).
	upgrade bool
	large   bool
}

func (g *generator) pick(n int) int { return g.rng.IntN(n) }

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

func pickOf[T any](g *generator, xs ...T) T { return xs[g.pick(len(xs))] }

// between draws a duration in [lo, hi], whole milliseconds.
func (g *generator) between(lo, hi time.Duration) time.Duration {
	ms := int64((hi - lo) / time.Millisecond)
	return lo + time.Duration(g.rng.Int64N(ms+1))*time.Millisecond
}

// size draws the group size: mostly small, sometimes tens, now and then
// hundreds.
func (g *generator) size() int {
	switch r := g.rng.Float64(); {
	case r < 0.6:
		return 2 + g.pick(7)
	case r < 0.92:
		return 9 + g.pick(32)
	default:
		g.large = true
		return 41 + g.pick(260)
	}
}

func (g *generator) topics() {
	n := 1 + g.pick(3)
	for i := range n {
		g.s.Topics = append(g.s.Topics, Topic{Name: fmt.Sprintf("t%d", i+1), Partitions: 1 + g.pick(24), Rate: float64(10 * (1 + g.pick(20)))})
	}
}

// network draws a latency with jitter: uniform or lognormal around a
// few milliseconds, sometimes a constant.
func (g *generator) network() {
	switch g.pick(4) {
	case 0:
		g.s.Latency = Latency{Dist: "constant", Min: g.between(time.Millisecond, 5*time.Millisecond)}
	case 1:
		lo := g.between(0, 3*time.Millisecond)
		g.s.Latency = Latency{Dist: "uniform", Min: lo, Max: lo + g.between(time.Millisecond, 50*time.Millisecond)}
	default:
		med := g.between(time.Millisecond, 5*time.Millisecond)
		g.s.Latency = Latency{Dist: "lognormal", Min: med, Max: med + g.between(5*time.Millisecond, 200*time.Millisecond)}
	}
}

// settings draws the group's broker settings and the consumer defaults,
// within the ranges Kafka accepts: a classic session timeout between
// group.min.session.timeout.ms (6s) and the 45s default, a heartbeat
// interval under a third of it (ConsumerConfig's advice), a consumer
// group session timeout between group.consumer.min.session.timeout.ms
// (45s) and its max (60s), and a heartbeat interval between
// group.consumer.min.heartbeat.interval.ms (5s) and its max (15s).
func (g *generator) settings() {
	gr := &g.s.Group
	if g.chance(0.5) {
		d := pickOf(g, time.Duration(0), time.Second, 3*time.Second)
		gr.InitialRebalanceDelay = &d
	}
	if g.chance(0.3) {
		gr.SessionTimeout = pickOf(g, 45*time.Second, 60*time.Second)
		gr.HeartbeatInterval = pickOf(g, 5*time.Second, 10*time.Second, 15*time.Second)
	}
	if g.chance(0.3) {
		gr.Assignor = pickOf(g, "uniform", "range")
	}
	d := &g.s.Defaults
	if g.chance(0.6) {
		d.SessionTimeout = pickOf(g, 6*time.Second, 10*time.Second, 30*time.Second, 45*time.Second)
		d.HeartbeatInterval = min(d.SessionTimeout/3, pickOf(g, time.Second, 2*time.Second, 3*time.Second))
	}
	if g.chance(0.5) {
		d.MaxPollInterval = pickOf(g, 30*time.Second, time.Minute, 2*time.Minute)
	}
	if g.chance(0.3) {
		d.RequestTimeout = pickOf(g, 5*time.Second, 10*time.Second)
	}
	if g.chance(0.3) {
		d.CommitLatency = pickOf(g, time.Millisecond, 20*time.Millisecond, 200*time.Millisecond)
	}
	if g.chance(0.3) {
		d.RevokeCallback = g.between(0, 2*time.Second)
		d.AssignCallback = g.between(0, time.Second)
		d.LostCallback = g.between(0, time.Second)
	}
	if g.chance(0.2) {
		d.MetadataMaxAge = pickOf(g, 10*time.Second, 30*time.Second)
	}
	if g.chance(0.2) {
		d.Static = true
	}
}

// members draws the group and its protocols: a uniform group runs under
// every protocol (or every classic one, when its assignors are set), a
// mixed classic group lists assignors member by member around a common
// one, and a mixed group puts classic and consumer-protocol members in one
// group (the KIP-848 online migration).
func (g *generator) members() {
	n := g.size()
	switch r := g.rng.Float64(); {
	case r < 0.5:
		g.s.Protocols = []string{"eager", "cooperative", "nextgen"}
		g.upgrade = true
		if g.chance(0.4) {
			g.s.Defaults.Assignors = pickOf(g, []string{"range"}, []string{"roundrobin"}, []string{"sticky"},
				[]string{"cooperative-sticky"}, []string{"cooperative-sticky", "range"})
			g.s.Protocols = []string{"eager", "nextgen"}
		}
	case r < 0.75:
		g.s.Protocols = []string{"eager"}
		g.s.Description = "mixed classic group"
	default:
		g.s.Protocols = []string{"cooperative"}
		g.s.Description = "mixed classic and consumer-protocol group"
		g.s.Group.MigrationPolicy = "bidirectional"
	}
	// One classic rebalance protocol per mixed group: an eager member
	// (range only) beside a cooperative one (cooperative-sticky only) is
	// the skipped-bounce mistake of KIP-429, refused with
	// INCONSISTENT_GROUP_PROTOCOL; the generator leaves it to the library.
	cooperativeFamily := g.chance(0.5)
	classic := pickOf(g, "eager", "cooperative")
	for i := range n {
		m := Member{ID: fmt.Sprintf("c%d", i+1)}
		switch g.s.Description {
		case "mixed classic group":
			if cooperativeFamily {
				m.Settings.Assignors = pickOf(g, []string{"cooperative-sticky"}, []string{"cooperative-sticky", "range"})
			} else {
				m.Settings.Assignors = pickOf(g, []string{"range"}, []string{"cooperative-sticky", "range"}, []string{"roundrobin", "range"}, []string{"sticky", "range"})
			}
		case "mixed classic and consumer-protocol group":
			m.Settings.Protocol = pickOf(g, classic, "nextgen")
		}
		if g.chance(0.15) {
			m.Settings.Static = true
		}
		if i > 0 && len(g.s.Topics) > 1 && g.chance(0.2) { // c1 subscribes to every topic
			m.Settings.Subscription = g.topicSubset()
		}
		if i > 0 && g.chance(0.1) {
			m.Start = g.between(time.Second, 20*time.Second)
		}
		g.s.Members = append(g.s.Members, m)
	}
	// A large group gets partitions to match, up to four per member.
	if g.large {
		g.s.Topics[0].Partitions = n/2 + g.pick(n*3)
	}
}

func (g *generator) topicSubset() []string {
	var out []string
	for _, t := range g.s.Topics {
		if g.chance(0.5) {
			out = append(out, t.Name)
		}
	}
	if len(out) == 0 {
		out = []string{g.s.Topics[g.pick(len(g.s.Topics))].Name}
	}
	return out
}

// storm draws the disturbances: from about 30s in, when the group has
// formed, an event every few seconds for up to ten minutes (two for a
// large group), of every kind.
func (g *generator) storm() {
	length := g.between(20*time.Second, 10*time.Minute)
	mean := g.between(time.Second, 15*time.Second)
	if g.large {
		length = g.between(10*time.Second, 2*time.Minute)
		mean = g.between(2*time.Second, 20*time.Second)
	}
	st := newState(g.s)
	at := g.between(25*time.Second, 40*time.Second)
	end := at + length
	for ; at < end; at += time.Duration(g.rng.ExpFloat64()*float64(mean/time.Millisecond)) * time.Millisecond {
		if ev, ok := g.event(st, at); ok {
			st.apply(ev)
			g.s.Events = append(g.s.Events, ev)
		}
	}
}

// event draws one event at at, or none when no member can take the kind
// drawn.
func (g *generator) event(st *state, at time.Duration) (Event, bool) {
	free := st.free(at)
	session := st.session
	kinds := []string{"crash", "leave", "start", "restart", "pause", "stall", "network_partition", "rolling_restart", "add_partitions"}
	if len(g.s.Topics) > 1 {
		kinds = append(kinds, "subscribe")
	}
	ev := Event{At: at, Kind: pickOf(g, kinds...)}
	switch ev.Kind {
	case "start":
		down := st.down(at)
		if len(down) == 0 {
			return ev, false
		}
		ev.Members = []string{pickOf(g, down...)}
		return ev, true
	case "add_partitions":
		t := g.s.Topics[g.pick(len(g.s.Topics))].Name
		ev.Topic, ev.Count = t, st.partitions[t]+1+g.pick(8)
		return ev, true
	}
	if len(free) == 0 {
		return ev, false
	}
	one := []string{pickOf(g, free...)}
	switch ev.Kind {
	case "crash", "leave":
		ev.Members = one
	case "restart":
		ev.Members, ev.For, ev.Graceful = one, g.between(time.Second, 30*time.Second), g.chance(0.5)
		ev.Set = g.upgradeSet()
	case "pause":
		// Some pauses outlast the session timeout: the member is expired
		// and comes back a zombie.
		ev.Members, ev.For = one, g.between(100*time.Millisecond, session+30*time.Second)
	case "stall":
		ev.Members, ev.For = one, g.between(100*time.Millisecond, st.maxPoll+30*time.Second)
	case "network_partition":
		ev.Members, ev.For = g.subset(free, 3), g.between(100*time.Millisecond, session+20*time.Second)
	case "rolling_restart":
		ev.Members = g.subset(free, 6)
		ev.Interval, ev.For, ev.Graceful = g.between(2*time.Second, 30*time.Second), g.between(time.Second, 10*time.Second), g.chance(0.7)
		ev.Set = g.upgradeSet()
	case "subscribe":
		ev.Members, ev.Topics = g.subset(free, 3), g.topicSubset()
	}
	return ev, true
}

// upgradeSet sometimes makes a restart the KIP-848 online upgrade: the
// member comes back on the consumer protocol.
func (g *generator) upgradeSet() Settings {
	if g.upgrade && g.chance(0.2) {
		return Settings{GroupProtocol: "consumer"}
	}
	return Settings{}
}

// subset draws 1 to at most n of xs, in their order.
func (g *generator) subset(xs []string, n int) []string {
	k := 1 + g.pick(min(n, len(xs)))
	idx := g.rng.Perm(len(xs))[:k]
	slices.Sort(idx)
	out := make([]string, k)
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

// heal ends the storm: once every fault has healed, members that are down
// come back (some of them, or all), a few seconds apart.
func (g *generator) heal() {
	h := g.s.Healed() + settle
	st := newState(g.s)
	everyone := len(st.running()) == 0 || g.chance(0.3)
	for _, id := range st.down(h) {
		if everyone || g.chance(0.5) {
			h += g.between(0, 3*time.Second)
			g.s.Events = append(g.s.Events, Event{At: max(h, time.Second), Kind: "start", Members: []string{id}})
		}
	}
}
