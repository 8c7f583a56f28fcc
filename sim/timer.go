package sim

import (
	"fmt"
	"time"
)

// timer is one of a model's timers: one of a client incarnation's (proc set)
// or one of the coordinator's (proc nil).
//
// Models re-arm some timers on every heartbeat (the coordinator's session
// timer, a client's request timeout), almost always to a later time.
// Re-arming to a later time therefore only moves the deadline: the kernel
// event stays where it is and, if it fires before the deadline, schedules
// itself again for it. Cancelling only disarms. So a heartbeat costs the
// event queue nothing, where a cancel and a push each time left the heap
// full of dead entries. The timer is its own kernel event handler, so
// arming it allocates nothing either.
//
// What setting a timer reads and writes comes first, within 64 bytes, and
// what only firing it reads comes after.
type timer struct {
	w        *world
	id       TimerID
	deadline time.Duration
	// eventAt is when the queued kernel event for this timer runs, while
	// pending.
	eventAt time.Duration
	armed   bool
	pending bool
	// thread is the client thread the timer fires on (a Thread).
	thread uint8
	// proc and incarnation name the client whose timer this is.
	proc        *process
	incarnation int
	event       eventID
}

// timerSet holds one model's timers by id, and finds them without hashing
// anything. The timers of a kind alone (a client's heartbeat, the
// coordinator's join timer), a handful per model, are found by a scan of
// a short list of their kinds (a pointer each, so comparisons are
// cheap); the coordinator's timers kept per member, a few per member, are
// found by the member's handle, an index, and then by kind among that
// member's.
//
// The short list sits in the set itself, which lives in its process,
// behind the fields every event of the process reads: the scan reads
// memory the step has just touched, and the timer it finds is the first
// other memory it reads. The list stays in the order the timers were
// made: moving a found timer towards the front cost more (a swap of two
// entries that hold pointers, with the collector's write barriers) than
// the shorter scans saved.
type timerSet struct {
	n     int // entries of short in use
	short [shortTimers]kindTimer
	// byMember[h] holds the timers of the member with handle h; byMember[0]
	// those of a kind alone past the short list's room.
	byMember [][]*timer
	// list is every timer, in the order they were made.
	list []*timer
}

// kindTimer is a timer of a kind alone, with no member.
type kindTimer struct {
	kind TimerKind
	t    *timer
}

// shortTimers is the room for timers of a kind alone in a timerSet's
// short list: more than any model has.
const shortTimers = 8

func (s *timerSet) get(id TimerID) *timer {
	if id.Handle == 0 {
		for i := range s.short[:s.n] {
			if e := &s.short[i]; e.kind == id.Kind {
				return e.t
			}
		}
	}
	if int(id.Handle) < len(s.byMember) {
		for _, t := range s.byMember[id.Handle] {
			if t.id.Kind == id.Kind {
				return t
			}
		}
	}
	return nil
}

func (s *timerSet) add(t *timer) {
	s.list = append(s.list, t)
	h := t.id.Handle
	if h == 0 && s.n < shortTimers {
		s.short[s.n] = kindTimer{kind: t.id.Kind, t: t}
		s.n++
		return
	}
	if int(h) >= len(s.byMember) {
		s.byMember = append(s.byMember, make([][]*timer, int(h)+1-len(s.byMember))...)
	}
	s.byMember[h] = append(s.byMember[h], t)
}

// sameTimer tells whether a and b name the same timer: the same kind of
// timer of the same member, or of none.
func sameTimer(a, b TimerID) bool { return a.Kind == b.Kind && a.Handle == b.Handle }

// setTimer applies a model's timer request to its timer in timers,
// creating it (for p, or for the coordinator when p is nil) on first use.
// last, when not nil, remembers the timer set last from the same place and
// is tried before the set: a member's heartbeat re-arms its session timer
// at the coordinator, which then need not look among the member's timers.
func (w *world) setTimer(timers *timerSet, p *process, tr *TimerRequest, last **timer) {
	var t *timer
	if last != nil && *last != nil && sameTimer((*last).id, tr.ID) {
		t = *last
	} else {
		t = timers.get(tr.ID)
	}
	if tr.Cancel {
		if t != nil {
			t.armed = false
		}
		return
	}
	if t == nil {
		if tr.ID.Handle == 0 && tr.ID.Member != "" {
			panic(fmt.Sprintf("sim: timer %s names a member without its handle (see MemberHandles)", tr.ID))
		}
		t = &timer{w: w, id: tr.ID, proc: p}
		if p != nil {
			t.incarnation = p.incarnation
		}
		timers.add(t)
	}
	if last != nil {
		*last = t
	}
	t.deadline, t.armed, t.thread = max(tr.At, w.k.Now()), true, uint8(tr.Thread)
	if t.pending && t.eventAt <= t.deadline {
		return
	}
	if t.pending {
		w.k.Cancel(t.event)
	}
	t.schedule()
}

func (t *timer) schedule() {
	t.pending, t.eventAt = true, t.deadline
	t.event = t.w.k.schedule(t.deadline, t)
}

// fire is the timer's kernel event.
func (t *timer) fire() {
	t.pending = false
	switch {
	case !t.armed:
	case t.w.k.Now() < t.deadline:
		t.schedule() // re-armed later since this event was queued
	default:
		t.armed = false
		t.expire()
	}
}

// expire hands the timer to its model.
func (t *timer) expire() {
	w := t.w
	if t.proc == nil {
		out := w.effects()
		w.coord.Timer(w.coordEnv(), t.id, out)
		w.applyCoordinator(out, nil)
		w.release(out)
		return
	}
	if t.proc.incarnation == t.incarnation {
		w.stepClient(t.proc, Thread(t.thread), clientInput{kind: inputTimer, timer: t.id})
	}
}

// stopTimers disarms every timer of timers and drops their events.
func (w *world) stopTimers(timers *timerSet) {
	for _, t := range timers.list {
		t.armed = false
		if t.pending {
			w.k.Cancel(t.event)
			t.pending = false
		}
	}
}
