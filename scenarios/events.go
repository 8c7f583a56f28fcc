package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rebalsim/rebalsim/sim"
)

// eventKinds lists the event kinds, the keys that name what an event does.
func eventKinds() []string {
	return []string{
		string(sim.EventCrash), string(sim.EventLeave), string(sim.EventStart),
		string(sim.EventRestart), string(sim.EventPause), string(sim.EventStall),
		string(sim.EventNetworkPartition), string(sim.EventRollingRestart),
		string(sim.EventAddPartitions), string(sim.EventSubscribe), string(sim.EventRollout),
	}
}

// eventBodyKeys lists the keys of each kind written as a mapping; nil for
// the kinds whose value is just their targets (crash: c2).
func eventBodyKeys(kind sim.EventKind) []string {
	switch kind {
	case sim.EventRestart:
		return []string{"member", "members", "down", "graceful", "set"}
	case sim.EventPause, sim.EventStall, sim.EventNetworkPartition:
		return []string{"member", "members", "for"}
	case sim.EventRollingRestart:
		return []string{"members", "member", "interval", "down", "graceful", "set"}
	case sim.EventAddPartitions:
		return []string{"topic", "partitions"}
	case sim.EventSubscribe:
		return []string{"members", "member", "topics"}
	case sim.EventRollout:
		return rolloutKeys()
	}
	return nil
}

// eventExample shows each kind written correctly, for messages.
func eventExample(kind sim.EventKind) string {
	switch kind {
	case sim.EventRestart:
		return "{at: 60s, restart: {member: c2, down: 10s}}"
	case sim.EventPause:
		return "{at: 90s, pause: {member: c3, for: 12s}}"
	case sim.EventStall:
		return "{at: 90s, stall: {member: c3, for: 6m}}"
	case sim.EventNetworkPartition:
		return "{at: 90s, network_partition: {members: [c1, c2], for: 30s}}"
	case sim.EventRollingRestart:
		return "{at: 2m, rolling_restart: {members: all, interval: 20s, down: 5s}}"
	case sim.EventAddPartitions:
		return "{at: 60s, add_partitions: {topic: orders, partitions: 24}}"
	case sim.EventSubscribe:
		return "{at: 60s, subscribe: {members: [c1], topics: [orders, payments]}}"
	case sim.EventRollout:
		return "{at: 60s, rollout: {members: all, kind: statefulset, start_time: 20s}}"
	}
	return fmt.Sprintf("{at: 60s, %s: c2}", kind)
}

// events decodes the events: list and sorts it by time, keeping file order
// among events at the same instant.
func (d *decoder) events(n *yaml.Node, s *sim.Scenario) {
	items, ok := d.list(n, "events", "[{at: 60s, crash: c2}]")
	if !ok {
		return
	}
	keys := append([]string{"at"}, eventKinds()...)
	var events []sim.Event
	var order []int
	for i, it := range items {
		path := fmt.Sprintf("events[%d]", i)
		f, ok := d.mapping(it, "event", keys)
		if !ok {
			continue
		}
		it = d.value(it)
		d.mark(path, it)
		at := f.get("at")
		var kinds []*entry
		for _, e := range f.entries {
			if e.key != "at" {
				kinds = append(kinds, e)
			}
		}
		switch {
		case len(kinds) == 0 && slices.ContainsFunc(f.misspelt, func(k string) bool { return k != "at" }):
			continue // the misspelt kind is already reported
		case len(kinds) == 0:
			d.failf(it, "event has no kind; add one of %s, as in {at: 60s, crash: c2}", strings.Join(eventKinds(), ", "))
			continue
		case len(kinds) > 1:
			d.failf(kinds[1].keyNode, "event has two kinds, %s and %s; write one event for each", kinds[0].key, kinds[1].key)
			continue
		case at == nil && !f.lacks("at"):
			continue
		case at == nil:
			d.failf(it, "event has no at:; write %s", eventExample(sim.EventKind(kinds[0].key)))
			continue
		}
		ev := sim.Event{Kind: sim.EventKind(kinds[0].key), Line: it.Line}
		d.mark(path+".at", at.val)
		if ev.At, ok = d.duration(at.val, "at"); !ok {
			continue
		}
		if d.eventBody(&ev, kinds[0].val, path, s) {
			events = append(events, ev)
			order = append(order, i)
		}
	}
	sorted := make([]int, len(events))
	for i := range sorted {
		sorted[i] = i
	}
	slices.SortStableFunc(sorted, func(a, b int) int { return cmp.Compare(events[a].At, events[b].At) })
	s.Events = make([]sim.Event, len(events))
	d.eventOrder = make([]int, len(events))
	for i, j := range sorted {
		s.Events[i] = events[j]
		d.eventOrder[i] = order[j]
	}
}

// eventBody decodes the value of an event's kind key into ev, and reports
// whether it did so without a problem.
func (d *decoder) eventBody(ev *sim.Event, n *yaml.Node, path string, s *sim.Scenario) bool {
	problems := len(d.errs)
	d.eventFields(ev, n, path, s)
	return len(d.errs) == problems && !d.halted
}

func (d *decoder) eventFields(ev *sim.Event, n *yaml.Node, path string, s *sim.Scenario) {
	kind := string(ev.Kind)
	keys := eventBodyKeys(ev.Kind)
	if keys == nil {
		ev.Members, _ = d.targets(n, kind, path+".members", s)
		return
	}
	v := d.value(n)
	if v == nil {
		return
	}
	if v.Kind != yaml.MappingNode {
		d.failf(v, "%s must be a mapping such as %s, found %s", kind, eventExample(ev.Kind), describe(v))
		return
	}
	f, ok := d.mapping(v, kind, keys)
	if !ok {
		return
	}
	required := func(key string) *entry {
		e := f.get(key)
		if e == nil && f.lacks(key) {
			d.failf(v, "%s has no %s:; write %s", kind, key, eventExample(ev.Kind))
		}
		return e
	}
	if slices.Contains(keys, "members") {
		one, many := f.get("member"), f.get("members")
		switch {
		case one != nil && many != nil:
			d.failf(many.keyNode, "%s has both member: and members:; use one", kind)
			return
		case one == nil && many == nil && (!f.lacks("member") || !f.lacks("members")):
			return
		case one == nil && many == nil:
			d.failf(v, "%s has no members:; write %s", kind, eventExample(ev.Kind))
			return
		case one == nil:
			one = many
		}
		if ev.Members, ok = d.targets(one.val, one.key, path+".members", s); !ok {
			return
		}
	}
	switch ev.Kind {
	case sim.EventPause, sim.EventStall, sim.EventNetworkPartition:
		if e := required("for"); e != nil {
			d.mark(path+".for", e.val)
			ev.For, _ = d.duration(e.val, "for")
		}
	case sim.EventRestart, sim.EventRollingRestart:
		if e := f.get("down"); e != nil {
			d.mark(path+".down", e.val)
			ev.For, _ = d.duration(e.val, "down")
		}
		if ev.Kind == sim.EventRollingRestart {
			if e := required("interval"); e != nil {
				d.mark(path+".interval", e.val)
				ev.Interval, _ = d.duration(e.val, "interval")
			}
		}
		// A deployment stops consumers with close(), so restarts are
		// graceful unless the file says the process is killed.
		ev.Graceful = true
		if e := f.get("graceful"); e != nil {
			ev.Graceful, _ = d.boolean(e.val, "graceful")
		}
		if e := f.get("set"); e != nil {
			d.mark(path+".set", e.val)
			if sf, isMap := d.mapping(e.val, "set", settingKeys()); isMap {
				ev.Set = d.decodeSettings(sf, path+".set")
			}
		}
	case sim.EventAddPartitions:
		if e := required("topic"); e != nil {
			d.mark(path+".topic", e.val)
			ev.Topic, _ = d.str(e.val, "topic")
		}
		if e := required("partitions"); e != nil {
			d.mark(path+".partitions", e.val)
			p, _ := d.integer(e.val, "partitions", -1<<31, 1<<31-1)
			ev.Partitions = int32(p)
		}
	case sim.EventSubscribe:
		if e := required("topics"); e != nil {
			d.mark(path+".topics", e.val)
			ev.Topics, _ = d.strings(e.val, "topics", path+".topics")
		}
	case sim.EventRollout:
		d.rollout(ev, f, path+".rollout")
	}
}

// targets decodes the members an event acts on: one id, a list of ids, or
// all, which expands to every declared member in declaration order.
func (d *decoder) targets(n *yaml.Node, key, path string, s *sim.Scenario) ([]string, bool) {
	v := d.value(n)
	if v == nil {
		return nil, false
	}
	d.mark(path, v)
	switch {
	case v.Kind == yaml.ScalarNode && !isNull(v):
		if v.Value == "all" {
			if !d.act(v, len(s.Members)) {
				return nil, false
			}
			ids := make([]string, len(s.Members))
			for i, m := range s.Members {
				ids[i] = m.ID
			}
			return ids, true
		}
		return []string{v.Value}, d.act(v, 1)
	case v.Kind == yaml.SequenceNode:
		ids := make([]string, 0, len(v.Content))
		what := key + " entries"
		for _, it := range v.Content {
			id, ok := d.str(it, what)
			if !ok {
				return nil, false
			}
			if id == "all" {
				d.failf(d.value(it), "all stands alone: write %s: all, not a list that contains it", key)
				return nil, false
			}
			ids = append(ids, id)
		}
		return ids, d.act(v, len(ids))
	}
	d.failf(v, "%s takes a member id, a list of ids or all, found %s", key, describe(v))
	return nil, false
}

// act counts an event acting on n members against MaxEventActions, before
// anything is allocated for them.
func (d *decoder) act(at *yaml.Node, n int) bool {
	d.actions += max(n, 1)
	if d.actions > MaxEventActions {
		d.failf(at, "the events act on more than %s members in total, the limit (an event counts once per member it names; all counts every member)", grouped(MaxEventActions))
		d.halted = true
		return false
	}
	return true
}
