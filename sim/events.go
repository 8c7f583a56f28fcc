package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// schedule turns one scenario event into kernel events and records it as a
// disturbance.
func (w *world) schedule(ev Event) {
	label := fmt.Sprintf("%s %s", ev.Kind, strings.Join(ev.Members, ","))
	end := ev.At + ev.For
	switch ev.Kind {
	case EventRollingRestart:
		// Each restart is a disturbance of its own; convergence is judged
		// per restart.
		for i, name := range ev.Members {
			at := ev.At + time.Duration(i)*ev.Interval
			w.scheduleRestart(w.proc(name), at, ev.For, ev.Graceful, ev.Set)
			w.disturb(disturbance{kind: string(EventRestart), members: []string{name}, start: at, end: at + ev.For, label: "rolling restart " + name})
		}
		return
	case EventRestart:
		for _, name := range ev.Members {
			w.scheduleRestart(w.proc(name), ev.At, ev.For, ev.Graceful, ev.Set)
		}
	case EventStart:
		end = ev.At
		w.forEach(ev, func(p *process) { w.startDelayed(p) })
	case EventLeave:
		end = ev.At
		w.forEach(ev, func(p *process) { w.closeProcess(p) })
	case EventCrash:
		end = ev.At
		w.forEach(ev, func(p *process) { w.stopProcess(p, false) })
	case EventPause:
		w.forEach(ev, func(p *process) { w.pause(p, ev.For) })
	case EventStall:
		w.forEach(ev, func(p *process) { w.stall(p, ev.For) })
	case EventNetworkPartition:
		w.forEach(ev, func(p *process) {
			p.cutOffUntil = max(p.cutOffUntil, w.k.Now()+ev.For)
			if w.traceOn() {
				w.emit(traceRecord{Event: "network_partition", Member: p.name, Detail: fmt.Sprintf("cut off for %s", ev.For)})
			}
		})
	case EventAddPartitions:
		end = ev.At
		label = fmt.Sprintf("add_partitions %s→%d", ev.Topic, ev.Partitions)
		w.k.At(ev.At, func() { w.addPartitions(ev.Topic, ev.Partitions) })
	case EventRollout:
		// Each pod deletion is a disturbance of its own (see
		// rollout.deleteLater): when they happen depends on the run.
		w.startRollout(ev)
		return
	case EventSubscribe:
		end = ev.At
		label = fmt.Sprintf("subscribe %s to %s", strings.Join(ev.Members, ","), strings.Join(ev.Topics, ","))
		w.forEach(ev, func(p *process) { w.subscribe(p, ev.Topics) })
	}
	w.disturb(disturbance{kind: string(ev.Kind), members: ev.Members, start: ev.At, end: end, label: label})
}

// disturbance is a scenario event as scheduled, its times kept integral:
// convergence is judged on them, and only the result converts them to
// seconds (Disturbance).
type disturbance struct {
	kind       string
	members    []string
	start, end time.Duration
	label      string
}

func (d disturbance) out() Disturbance {
	return Disturbance{Kind: d.kind, Members: d.members, Start: sec(d.start), End: sec(d.end), Label: d.label}
}

func (w *world) disturb(d disturbance) {
	w.disturbances = append(w.disturbances, d)
}

// lastUntilUp makes a start or restart of member that ends now last until
// its delayed process is up (RunOptions.StartDelays): convergence is
// judged from the instant the process could first join, so a group that
// looks settled while the process is still starting is not taken as
// converged.
func (w *world) lastUntilUp(member string, up time.Duration) {
	now := w.k.Now()
	for i := range w.disturbances {
		d := &w.disturbances[i]
		if (d.kind == string(EventStart) || d.kind == string(EventRestart)) && d.end == now && slices.Contains(d.members, member) {
			d.end = max(d.end, up)
		}
	}
}

func (w *world) proc(name string) *process { return w.procs[w.byName[name]] }

// forEach schedules fn for every target member at the event's time.
func (w *world) forEach(ev Event, fn func(p *process)) {
	w.k.At(ev.At, func() {
		for _, name := range ev.Members {
			if i, ok := w.byName[name]; ok {
				fn(w.procs[i])
			}
		}
	})
}

func (w *world) scheduleRestart(p *process, at, down time.Duration, graceful bool, set ConsumerSettings) {
	w.k.At(at, func() {
		if !p.alive {
			return
		}
		if graceful {
			w.closeProcess(p)
		} else {
			w.stopProcess(p, false)
		}
	})
	w.k.At(at+down, func() {
		if p.alive {
			// A graceful close that has not finished yet is cut short.
			w.stopProcess(p, false)
		}
		if set != (ConsumerSettings{}) {
			p.patches = append(p.patches, set)
		}
		w.startDelayed(p)
	})
}

// pause freezes the whole process, both threads, for d: a stop-the-world
// garbage collection.
func (w *world) pause(p *process, d time.Duration) {
	w.block(p, &p.paused, &p.pausedUntil, "pause", d, func() {
		if w.traceOn() {
			w.emit(traceRecord{Event: "resume", Member: p.name})
		}
		if fn := p.finishAfterPause; fn != nil {
			p.finishAfterPause = nil
			fn()
		}
	})
}

// stall blocks the application thread for d (slow processing); the
// background thread goes on.
func (w *world) stall(p *process, d time.Duration) {
	w.block(p, &p.stalled, &p.stalledUntil, "stall", d, nil)
}

// block sets *on until d from now (an overlapping block only extends it)
// and, when it ends, runs wake, delivers what waited and resumes the
// application thread.
func (w *world) block(p *process, on *bool, until *time.Duration, kind string, d time.Duration, wake func()) {
	if !p.alive {
		return
	}
	end := w.k.Now() + d
	if *on && end <= *until {
		return
	}
	// A pause freezes a batch in progress with the thread: what is left
	// of it is processed after the pause. A stall is itself the batch
	// that takes long, and ends in poll().
	w.pollLoop(p)
	if p.inBatch() {
		if kind == "stall" {
			p.batchEnd = 0
		} else {
			from := w.k.Now()
			if *on {
				from = *until
			}
			p.batchEnd += end - from
		}
	}
	w.blockApp(p, func() { *on = true })
	*until = end
	w.syncProcess(p)
	if w.traceOn() {
		w.emit(traceRecord{Event: kind, Member: p.name, Detail: fmt.Sprintf("for %s", d)})
	}
	w.update(p)
	inc := p.incarnation
	w.k.At(end, func() {
		if p.incarnation != inc || !*on || w.k.Now() < *until {
			return
		}
		*on = false
		if !p.inBatch() {
			// The loop was blocked in poll(), or a stall ends in one.
			w.polled(p)
		}
		if wake != nil {
			wake()
		}
		w.drain(p)
		w.resumeApp(p)
	})
}

// resumeApp lets a process's application thread process records again
// after a pause or a stall. poll() runs the rebalance callbacks queued in
// the meantime before it returns any record, so processing waits until
// they are done (see finishCallback).
func (w *world) resumeApp(p *process) {
	p.catchingUp = p.appBusy || len(p.callbacks) > 0
	w.syncProcess(p)
	w.update(p)
}

// syncProcess tells the ledger whether p can process records.
func (w *world) syncProcess(p *process) {
	w.ledger.SetProcess(p.idx, p.alive, p.paused, p.stalled || p.catchingUp)
}

func (w *world) addPartitions(topic string, n int32) {
	for i, t := range w.metadata {
		if t.Name != topic || n <= t.Partitions {
			continue
		}
		for p := t.Partitions; p < n; p++ {
			w.ledger.addPartition(kafka.TopicPartition{Topic: topic, Partition: p}, w.loads[topic].rate(p), w.loads[topic].curve, w.required[topic])
		}
		// Metadata is replaced, never mutated: clients hold the old slice
		// until their next refresh.
		md := append([]kafka.Topic(nil), w.metadata...)
		md[i].Partitions = n
		w.metadata = md
	}
	out := w.effects()
	w.coord.MetadataChanged(w.coordEnv(), out)
	w.applyCoordinator(out, nil)
	w.release(out)
}

func (w *world) subscribed(topic string) bool {
	for _, p := range w.procs {
		if p.alive {
			for _, t := range p.cfg.Subscription {
				if t == topic {
					return true
				}
			}
		}
	}
	return false
}

func (w *world) subscribe(p *process, topics []string) {
	ts := append([]string(nil), topics...)
	p.patches = append(p.patches, ConsumerSettings{Subscription: &ts})
	p.cfg.Subscription = ts
	w.stepClient(p, AppThread, clientInput{fn: func(c Client, env ClientEnv, out *Effects) { c.Subscribe(env, ts, out) }})
	w.refreshRequired()
}

// refreshRequired recomputes which topics some live member subscribes to
// and, when that changed, tells the ledger: a partition nobody alive can
// own is not required for the group to be converged, and becomes
// required again when a subscriber starts. (Before, only a subscription
// change recomputed it, so partitions added while every subscriber was
// down stayed unrequired for good, and the group never counted as
// converged once a member owned them.)
func (w *world) refreshRequired() {
	changed := false
	for _, t := range w.metadata {
		if r := w.subscribed(t.Name); r != w.required[t.Name] {
			w.required[t.Name], changed = r, true
		}
	}
	if changed {
		w.ledger.SetRequired(func(topic string) bool { return w.required[topic] })
	}
}
