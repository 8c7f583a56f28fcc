package swarm

import (
	"slices"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// Shrink cuts s down to a small scenario that still fails like target (the
// same class and key under the same protocol, not a documented hazard, and
// with the same known-defect signature, if any), trying
// at most runs candidates. It keeps only target's protocol, then, until a
// whole pass changes nothing, drops events (halves, quarters, …, one at a
// time), members with the events that name them, topics, partitions,
// settings and jitter, and pulls the events together in time. Every
// candidate is judged through its YAML and the normal loader, like the
// original.
func Shrink(s *Spec, target Failure, models sim.Models, runs int) *Spec {
	sh := &shrinker{target: target, models: models, budget: runs}
	best := s.clone()
	if c := best.clone(); len(c.Protocols) > 1 {
		c.Protocols = []string{target.Protocol}
		if sh.fails(c) {
			best = c
		}
	}
	for changed := true; changed && sh.budget > 0; {
		changed = false
		for _, pass := range []func(*Spec) []*Spec{dropEvents, dropMembers, dropTopics, simplify, compress} {
			for _, c := range pass(best) {
				if sh.budget <= 0 {
					break
				}
				if sh.fails(c) {
					best, changed = c, true
					break // the pass's other candidates were cut from the old best
				}
			}
		}
	}
	return best
}

type shrinker struct {
	target Failure
	models sim.Models
	budget int
}

func (sh *shrinker) fails(c *Spec) bool {
	sh.budget--
	if !valid(c) || len(newState(c).running()) == 0 {
		return false // a group nobody is left in has nothing to show
	}
	f, err := Build(c)
	if err != nil {
		return false
	}
	for _, fl := range Judge(c, f, sh.models) {
		if fl.same(sh.target) && fl.Hazard == "" && fl.Known == sh.target.Known {
			return true
		}
	}
	return false
}

// dropEvents offers s without a chunk of its events, largest chunks first.
func dropEvents(s *Spec) []*Spec {
	var out []*Spec
	for size := len(s.Events); size >= 1; size /= 2 {
		for at := 0; at < len(s.Events); at += size {
			c := s.clone()
			c.Events = slices.Delete(c.Events, at, min(at+size, len(c.Events)))
			out = append(out, c)
		}
	}
	return out
}

// dropMembers offers s without a chunk of its members, and without them
// in its events (an event left naming nobody goes too).
func dropMembers(s *Spec) []*Spec {
	var out []*Spec
	for size := len(s.Members) / 2; size >= 1; size /= 2 {
		for at := 0; at+size <= len(s.Members) && len(s.Members)-size >= 1; at += size {
			c := s.clone()
			gone := map[string]bool{}
			for _, m := range c.Members[at : at+size] {
				gone[m.ID] = true
			}
			c.Members = slices.Delete(c.Members, at, at+size)
			c.Events = nil
			for _, e := range s.Events {
				e.Members = slices.DeleteFunc(slices.Clone(e.Members), func(id string) bool { return gone[id] })
				if len(e.Members) > 0 || e.Kind == "add_partitions" {
					c.Events = append(c.Events, e)
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// dropTopics offers s without one of its topics (and what names it), and
// with half the partitions of one.
func dropTopics(s *Spec) []*Spec {
	var out []*Spec
	for i, t := range s.Topics {
		if t.Partitions > 1 {
			c := s.clone()
			c.Topics[i].Partitions = t.Partitions / 2
			for j := range c.Events {
				if e := &c.Events[j]; e.Kind == "add_partitions" && e.Topic == t.Name {
					e.Count = max(c.Topics[i].Partitions+1, e.Count/2)
				}
			}
			out = append(out, c)
		}
		if len(s.Topics) == 1 {
			continue
		}
		c := s.clone()
		c.Topics = slices.Delete(c.Topics, i, i+1)
		keep := func(ts []string) []string {
			return slices.DeleteFunc(ts, func(n string) bool { return n == t.Name })
		}
		c.Defaults.Subscription = keep(c.Defaults.Subscription)
		for j := range c.Members {
			c.Members[j].Settings.Subscription = keep(c.Members[j].Settings.Subscription)
		}
		c.Events = slices.DeleteFunc(c.Events, func(e Event) bool {
			return (e.Kind == "add_partitions" && e.Topic == t.Name) || (e.Kind == "subscribe" && len(keep(slices.Clone(e.Topics))) == 0)
		})
		for j := range c.Events {
			c.Events[j].Topics = keep(c.Events[j].Topics)
		}
		out = append(out, c)
	}
	return out
}

// simplify offers s with one setting, one member's settings or one
// event's option back at its default, or a constant 1ms network.
func simplify(s *Spec) []*Spec {
	var out []*Spec
	with := func(change func(c *Spec)) {
		c := s.clone()
		change(c)
		out = append(out, c)
	}
	if s.Latency != (Latency{Dist: "constant", Min: time.Millisecond}) {
		with(func(c *Spec) { c.Latency = Latency{Dist: "constant", Min: time.Millisecond} })
	}
	if s.Group != (Group{}) {
		with(func(c *Spec) { c.Group = Group{} })
	}
	for _, cut := range settingCuts(s.Defaults, true) {
		with(func(c *Spec) { cut(&c.Defaults) })
	}
	for i, m := range s.Members {
		if m.Start > 0 {
			with(func(c *Spec) { c.Members[i].Start = 0 })
		}
		for _, cut := range settingCuts(m.Settings, false) {
			with(func(c *Spec) { cut(&c.Members[i].Settings) })
		}
	}
	for i, e := range s.Events {
		if e.Graceful {
			with(func(c *Spec) { c.Events[i].Graceful = false })
		}
		if len(e.Set.fields()) > 0 {
			with(func(c *Spec) { c.Events[i].Set = Settings{} })
		}
		if len(e.Members) > 1 {
			with(func(c *Spec) { c.Events[i].Members = c.Events[i].Members[:1] })
		}
	}
	return out
}

// settingCuts lists, for each setting s holds, a function that clears it.
// A member's protocol and assignors stay unless protocols is set: clearing
// one member's could put an eager member beside a cooperative one, the
// skipped-bounce mistake of KIP-429, a different failure.
func settingCuts(s Settings, protocols bool) []func(*Settings) {
	var cuts []func(*Settings)
	add := func(set bool, cut func(*Settings)) {
		if set {
			cuts = append(cuts, cut)
		}
	}
	add(protocols && s.Protocol != "", func(x *Settings) { x.Protocol = "" })
	add(protocols && s.GroupProtocol != "", func(x *Settings) { x.GroupProtocol = "" })
	add(protocols && s.Assignors != nil, func(x *Settings) { x.Assignors = nil })
	add(s.Static, func(x *Settings) { x.Static = false })
	add(s.SessionTimeout > 0 || s.HeartbeatInterval > 0, func(x *Settings) { x.SessionTimeout, x.HeartbeatInterval = 0, 0 })
	add(s.MaxPollInterval > 0, func(x *Settings) { x.MaxPollInterval = 0 })
	add(s.RequestTimeout > 0, func(x *Settings) { x.RequestTimeout = 0 })
	add(s.MetadataMaxAge > 0, func(x *Settings) { x.MetadataMaxAge = 0 })
	add(s.CommitLatency > 0, func(x *Settings) { x.CommitLatency = 0 })
	add(s.RevokeCallback > 0 || s.AssignCallback > 0 || s.LostCallback > 0, func(x *Settings) {
		x.RevokeCallback, x.AssignCallback, x.LostCallback = 0, 0, 0
	})
	add(s.ProcessingRate > 0, func(x *Settings) { x.ProcessingRate = 0 })
	add(s.Subscription != nil, func(x *Settings) { x.Subscription = nil })
	return cuts
}

// compress offers s with its events pulled together: the storm starts at
// 20s and every gap between events is halved.
func compress(s *Spec) []*Spec {
	if len(s.Events) == 0 {
		return nil
	}
	c := s.clone()
	const start = 20 * time.Second
	prev, at := s.Events[0].At, min(start, s.Events[0].At)
	moved := at != prev
	for i := range c.Events {
		gap := s.Events[i].At - prev
		prev = s.Events[i].At
		if gap > time.Second {
			gap = (gap / 2).Round(time.Millisecond)
			moved = true
		}
		at += gap
		c.Events[i].At = at
	}
	if !moved {
		return nil
	}
	return []*Spec{c}
}
