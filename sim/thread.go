package sim

import (
	"fmt"
	"time"
)

// clientInput is one input to a client model. The frequent ones (a
// message, a timer, a poll) are plain values, so handing one to a client,
// or queueing it for a blocked thread, allocates nothing; rare ones carry
// a func.
type clientInput struct {
	kind  inputKind
	msg   Message // inputReceive
	timer TimerID // inputTimer
	fn    func(c Client, env ClientEnv, out *Effects)
}

type inputKind uint8

const (
	inputFunc inputKind = iota
	inputReceive
	inputTimer
	inputPoll
)

// queuedInput is an input waiting for a blocked thread of one incarnation.
type queuedInput struct {
	in          clientInput
	incarnation int
}

// stepClient runs one input of p's client on thread t now, or queues it
// until that thread runs again.
func (w *world) stepClient(p *process, t Thread, in clientInput) {
	if !p.alive {
		return
	}
	if p.runnable(t) {
		w.runClient(p, in)
		return
	}
	// The thread is blocked: the input waits, unless the process has died
	// or restarted by the time it runs.
	q := queuedInput{in: in, incarnation: p.incarnation}
	if t == BackgroundThread {
		p.bgInbox = append(p.bgInbox, q)
	} else {
		p.appInbox = append(p.appInbox, q)
	}
}

// runQueued runs an input that waited for its thread.
func (w *world) runQueued(p *process, q queuedInput) {
	if p.alive && p.incarnation == q.incarnation {
		w.runClient(p, q.in)
	}
}

func (w *world) runClient(p *process, in clientInput) {
	out := w.effects()
	env := w.clientEnv(p)
	switch in.kind {
	case inputReceive:
		p.client.Receive(env, in.msg, out)
	case inputTimer:
		p.client.Timer(env, in.timer, out)
	case inputPoll:
		p.pollPending = false
		p.client.Poll(env, out)
	default:
		in.fn(p.client, env, out)
	}
	w.applyClient(p, out)
	w.release(out)
}

// schedulePoll arranges the application thread's next poll(). A running
// poll loop reaches poll() once it has processed its current batch, so the
// delay is drawn up to the time one batch takes.
func (w *world) schedulePoll(p *process) {
	if p.pollPending {
		return
	}
	p.pollPending = true
	batch := time.Duration(float64(p.cfg.MaxPollRecords) / max(p.cfg.ProcessingRate, 1) * float64(time.Second))
	batch = min(batch, time.Second)
	delay := time.Duration(p.pollRng.Int64N(int64(batch) + 1))
	e := w.polls.get()
	e.p, e.incarnation = p, p.incarnation
	w.k.schedule(w.k.Now()+delay, e)
}

// pollDue is the event of an incarnation's next poll(). Like deliveries,
// polls are pooled: a rebalance of a large group schedules one per member.
type pollDue struct {
	p           *process
	incarnation int
}

func (e *pollDue) fire() {
	p, incarnation := e.p, e.incarnation
	p.w.polls.put(e)
	if p.incarnation == incarnation {
		p.w.stepClient(p, AppThread, clientInput{kind: inputPoll})
	}
}

// runCallbacks starts the next queued callback if the application thread
// is free. Callbacks run one at a time, like listener invocations in poll().
func (w *world) runCallbacks(p *process) {
	if len(p.callbacks) == 0 || !p.appRunnable() {
		return
	}
	cb := p.callbacks[0]
	p.callbacks = p.callbacks[1:]
	w.blockApp(p, func() { p.appBusy = true })
	started := w.k.Now()
	var d time.Duration
	switch cb.Kind {
	case CallbackRevoked:
		w.ledger.StartRevoke(p.idx, cb.Partitions)
		if p.commitsBefore(cb) {
			d += p.cfg.CommitLatency
		}
		d += p.cfg.RevokeCallback
	case CallbackAssigned:
		w.ledger.Assign(p.idx, cb.Partitions)
		w.resumeAutoCommit(p)
		d += p.cfg.AssignCallback
	case CallbackLost:
		w.ledger.Release(p.idx, cb.Partitions, false, false)
		d += p.cfg.LostCallback
	}
	if w.traceOn() {
		w.emit(traceRecord{Event: "callback_start", Member: p.name, Detail: fmt.Sprintf("%s %v", cb.Kind, cb.Partitions)})
	}
	inc := p.incarnation
	w.k.At(w.k.Now()+d, func() {
		if p.incarnation != inc {
			return
		}
		// A callback cannot finish while the whole process is frozen; it
		// finishes when the pause ends.
		if p.paused {
			p.finishAfterPause = func() { w.finishCallback(p, cb, started) }
			return
		}
		w.finishCallback(p, cb, started)
	})
}

func (w *world) finishCallback(p *process, cb Callback, started time.Duration) {
	if cb.Kind == CallbackRevoked {
		w.ledger.Release(p.idx, cb.Partitions, true, p.commitsBefore(cb))
	}
	p.metrics.callbacks[cb.Kind] = append(p.metrics.callbacks[cb.Kind], float64(w.k.Now()-started)/float64(time.Millisecond))
	if w.traceOn() {
		w.emit(traceRecord{Event: "callback_end", Member: p.name, Detail: fmt.Sprintf("%s %v", cb.Kind, cb.Partitions)})
	}
	p.appBusy = false
	out := w.effects()
	p.client.CallbackDone(w.clientEnv(p), cb, out)
	w.applyClient(p, out)
	w.release(out)
	w.drain(p)
	if p.catchingUp && !p.appBusy && len(p.callbacks) == 0 {
		p.catchingUp = false
		w.syncProcess(p)
		w.update(p)
	}
}

// blockApp applies a change that stops the application thread and
// remembers since when it has not polled.
func (w *world) blockApp(p *process, change func()) {
	was := p.appRunnable()
	change()
	if was && !p.appRunnable() {
		p.appBlocked = w.k.Now()
	}
}

// drain delivers inputs that waited for a blocked thread, oldest first.
func (w *world) drain(p *process) {
	for p.alive && p.bgRunnable() && len(p.bgInbox) > 0 {
		q := p.bgInbox[0]
		p.bgInbox = p.bgInbox[1:]
		w.runQueued(p, q)
	}
	for p.alive && p.appRunnable() && len(p.callbacks) == 0 && len(p.appInbox) > 0 {
		q := p.appInbox[0]
		p.appInbox = p.appInbox[1:]
		w.runQueued(p, q)
	}
	w.runCallbacks(p)
}
