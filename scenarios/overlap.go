package scenarios

import (
	"fmt"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// What each member is doing, event by event, so that two events that
// would act on one member at once are refused instead of given whatever
// meaning the simulator's order of handling happens to give them. The
// rules, in the order they are checked:
//
//   - A member is down before its start: time, after a crash or a leave,
//     and until a start event brings it back. Start may only act on a
//     down member. A restart (or a rolling restart's turn) of a down
//     member starts it when its down time is over, as a restart of a
//     running one does: that is how a rolling restart of members: all
//     brings back a member that crashed before it. Nothing else may act
//     on a down member.
//   - A pause, a stall, a network partition and a restart hold a member
//     from their at until they end (for:, or down: of a restart; the
//     member's own turn of a rolling restart). A crash or a restart of a
//     held member ends the hold: the process is killed (or, for a
//     graceful restart, closed) paused, stalled or cut off as it is, like
//     kill -9 of a frozen JVM or the restart of a stuck one. Nothing else
//     may act on a held member: not a second pause, stall or partition,
//     not a leave (close() runs on the application thread the hold
//     blocks), not a subscription change.
//   - A Deployment's rollout replaces its members with new pods: they
//     are down after it. (A StatefulSet's brings each back.)
//   - A rolling restart of more than one member needs a positive interval;
//     restarting several members at once is a restart with members:.
//
// A refused event names its own line, the line of the event it collides
// with, and the member.
type memberTimeline struct {
	down bool
	// since is the line of what put the member in its current state (its
	// entry, or the event), and until when a disturbance holds it.
	since int
	why   string
	until time.Duration
}

func (c *checker) checkOverlaps() {
	s := c.s
	members := map[string]*memberTimeline{}
	// pending holds the members declared with a start: later than 0,
	// which come up at that time.
	pending := map[string]time.Duration{}
	for _, m := range s.Members {
		members[m.ID] = &memberTimeline{since: m.Line, why: "it runs from the start"}
		if m.Start > 0 {
			members[m.ID] = &memberTimeline{down: true, since: m.Line, why: "it starts at " + FormatDuration(m.Start)}
			pending[m.ID] = m.Start
		}
	}
	for i, ev := range s.Events {
		if c.full() {
			return
		}
		path := fmt.Sprintf("events[%d]", i)
		if ev.Kind == sim.EventRollingRestart && len(ev.Members) > 1 && ev.Interval <= 0 {
			c.problem(path+".interval", "a rolling restart of %d members needs a positive interval, found %s; to restart them all at once, write restart: {members: [...], down: ...}",
				len(ev.Members), FormatDuration(ev.Interval))
			continue
		}
		for k, id := range ev.Members {
			m := members[id]
			if m == nil {
				continue // checkTargets reports unknown members
			}
			if at, ok := pending[id]; ok && at <= ev.At {
				m.down, m.why = false, "it started at "+FormatDuration(at)
				delete(pending, id)
			}
			at, end := ev.At, ev.At
			switch ev.Kind {
			case sim.EventPause, sim.EventStall, sim.EventNetworkPartition, sim.EventRestart:
				end = ev.At + ev.For
			case sim.EventRollingRestart:
				at = ev.At + time.Duration(k)*ev.Interval
				end = at + ev.For
			}
			switch {
			case ev.Kind == sim.EventStart && !m.down:
				c.problem(path, "start %s: the member is already running (%s, line %d); start brings back a member that crashed or left",
					id, m.why, m.since)
			case ev.Kind != sim.EventStart && ev.Kind != sim.EventRestart && ev.Kind != sim.EventRollingRestart && m.down:
				c.problem(path, "%s %s at %s: the member is down (%s, line %d); start it first", ev.Kind, id, FormatDuration(at), m.why, m.since)
			case ev.Kind != sim.EventCrash && ev.Kind != sim.EventRestart && ev.Kind != sim.EventRollingRestart && at < m.until:
				c.problem(path, "%s %s at %s overlaps the %s at line %d, which holds the member until %s; one disturbance at a time per member",
					ev.Kind, id, FormatDuration(at), m.why, m.since, FormatDuration(m.until))
				continue
			}
			switch ev.Kind {
			case sim.EventStart:
				m.down, m.since, m.why, m.until = false, ev.Line, "started", 0
			case sim.EventCrash, sim.EventLeave:
				m.down, m.since, m.why, m.until = true, ev.Line, "its "+string(ev.Kind), 0
			case sim.EventRestart, sim.EventRollingRestart:
				m.down, m.since, m.why, m.until = false, ev.Line, string(ev.Kind), end
			case sim.EventPause, sim.EventStall, sim.EventNetworkPartition:
				m.since, m.why, m.until = ev.Line, string(ev.Kind), end
			case sim.EventRollout:
				// A Deployment replaces the member with a pod of another
				// name; a StatefulSet brings it back under its own.
				if ev.Rollout != nil && ev.Rollout.Kind == sim.Deployment {
					m.down, m.since, m.why, m.until = true, ev.Line, "a deployment rollout replaced it", 0
				}
			}
		}
	}
}
