package sim

import "time"

// timer is a model's named timer. Models re-arm some timers on every
// heartbeat (the coordinator's session timer, a client's request timeout),
// almost always to a later time. Re-arming to a later time therefore only
// moves the deadline: the kernel event stays where it is and, if it fires
// before the deadline, schedules itself again for it. Cancelling only
// disarms. So a heartbeat costs the event queue nothing, where a cancel
// and a push each time left the heap full of dead entries.
type timer struct {
	deadline time.Duration
	armed    bool
	// pending tells whether a kernel event for this timer is queued, for
	// eventAt.
	pending bool
	eventAt time.Duration
	event   EventID
	fire    func()
}

// setTimer applies a model's timer request to the named timer of timers;
// fire runs when an armed timer reaches its deadline.
func (w *World) setTimer(timers map[string]*timer, tr TimerRequest, fire func()) {
	t := timers[tr.Name]
	if tr.Cancel {
		if t != nil {
			t.armed = false
		}
		return
	}
	if t == nil {
		t = &timer{}
		timers[tr.Name] = t
	}
	t.deadline, t.armed, t.fire = max(tr.At, w.k.Now()), true, fire
	if t.pending && t.eventAt <= t.deadline {
		return
	}
	if t.pending {
		w.k.Cancel(t.event)
	}
	w.scheduleTimer(t)
}

func (w *World) scheduleTimer(t *timer) {
	t.pending, t.eventAt = true, t.deadline
	t.event = w.k.At(t.deadline, func() {
		t.pending = false
		switch {
		case !t.armed:
		case w.k.Now() < t.deadline:
			w.scheduleTimer(t) // re-armed later since this event was queued
		default:
			t.armed = false
			t.fire()
		}
	})
}

// stopTimers disarms every timer of timers and drops their events.
func (w *World) stopTimers(timers map[string]*timer) {
	for _, t := range timers {
		t.armed = false
		if t.pending {
			w.k.Cancel(t.event)
			t.pending = false
		}
	}
}
