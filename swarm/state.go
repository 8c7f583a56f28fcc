package swarm

import (
	"slices"
	"time"
)

// state follows which members run and which are held by a disturbance,
// event by event, so that the generator only draws events that mean one
// thing and the data-plane check knows who should own what at the end.
type state struct {
	spec    *Spec
	order   []string
	members map[string]*memberState
	// partitions is each topic's current partition count.
	partitions map[string]int
	// session and maxPoll are the largest session timeout and
	// max.poll.interval.ms any member may have (Kafka's defaults unless
	// the defaults say otherwise), for drawing faults that outlast them.
	session, maxPoll time.Duration
}

type memberState struct {
	start        time.Duration
	up           bool
	busyUntil    time.Duration
	subscription []string // nil: every topic
}

// settle is how long after a crash or a leave the generator waits before
// it starts the member again, so that a start never lands inside a close.
const settle = 5 * time.Second

func newState(s *Spec) *state {
	st := &state{spec: s, members: map[string]*memberState{}, partitions: map[string]int{},
		session: 45 * time.Second, maxPoll: 5 * time.Minute}
	if s.Defaults.SessionTimeout > 0 {
		st.session = s.Defaults.SessionTimeout
	}
	if s.Group.SessionTimeout > st.session {
		st.session = s.Group.SessionTimeout
	}
	if s.Defaults.MaxPollInterval > 0 {
		st.maxPoll = s.Defaults.MaxPollInterval
	}
	for _, t := range s.Topics {
		st.partitions[t.Name] = t.Partitions
	}
	for _, m := range s.Members {
		st.order = append(st.order, m.ID)
		sub := m.Settings.Subscription
		if sub == nil {
			sub = s.Defaults.Subscription
		}
		st.members[m.ID] = &memberState{start: m.Start, up: true, busyUntil: m.Start, subscription: sub}
	}
	for _, e := range s.Events {
		st.apply(e)
	}
	return st
}

// apply records e's effect on the members.
func (st *state) apply(e Event) {
	for i, id := range e.Members {
		m := st.members[id]
		if m == nil {
			continue
		}
		switch e.Kind {
		case "crash", "leave":
			m.up, m.busyUntil = false, e.At+settle
		case "start":
			m.up, m.busyUntil = true, e.At
		case "rolling_restart":
			m.busyUntil = e.At + time.Duration(i)*e.Interval + e.For
		case "subscribe":
			m.subscription = slices.Clone(e.Topics)
			m.busyUntil = e.At + time.Second
		default:
			m.busyUntil = e.End()
		}
	}
	if e.Kind == "add_partitions" {
		st.partitions[e.Topic] = max(st.partitions[e.Topic], e.Count)
	}
}

// valid reports whether every event of s acts on members in a state it
// has one meaning for: a start on a member that is down, anything else on
// one that runs and that no other disturbance holds. The generator only
// draws such events; the shrinker keeps only candidates that are.
func valid(s *Spec) bool {
	st := newState(&Spec{Defaults: s.Defaults, Group: s.Group, Topics: s.Topics, Members: s.Members})
	for _, e := range s.Events {
		for _, id := range e.Members {
			m := st.members[id]
			switch {
			case m == nil:
				return false
			case e.Kind == "start" && (m.up || m.busyUntil > e.At):
				return false
			case e.Kind != "start" && (!m.up || m.start > e.At || m.busyUntil > e.At):
				return false
			}
		}
		st.apply(e)
	}
	return true
}

// free lists the members that run at at and that no disturbance holds.
func (st *state) free(at time.Duration) []string {
	var out []string
	for _, id := range st.order {
		if m := st.members[id]; m.up && m.start <= at && m.busyUntil <= at {
			out = append(out, id)
		}
	}
	return out
}

// down lists the members that are down at at and may be started.
func (st *state) down(at time.Duration) []string {
	var out []string
	for _, id := range st.order {
		if m := st.members[id]; !m.up && m.busyUntil <= at {
			out = append(out, id)
		}
	}
	return out
}

// running lists the members up at the end of the events.
func (st *state) running() []string {
	var out []string
	for _, id := range st.order {
		if st.members[id].up {
			out = append(out, id)
		}
	}
	return out
}

// subscribed reports whether a member that runs at the end subscribes to topic.
func (st *state) subscribed(topic string) bool {
	for _, id := range st.running() {
		sub := st.members[id].subscription
		if sub == nil || slices.Contains(sub, topic) {
			return true
		}
	}
	return false
}
