package sim

import (
	"fmt"
	"math"
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
	if t == AppThread {
		w.pollLoop(p)
		if in.kind == inputPoll && p.pollEventAt == w.k.Now() && p.appRunnable() {
			// The client has had this poll() already and asks for the
			// next one: the poll() in progress returns its batch first.
			w.returnBatch(p)
		}
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
		w.armPoll(p)
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
		env.PollEvent = w.pollEvent(p)
		p.client.Poll(env, out)
	default:
		in.fn(p.client, env, out)
	}
	w.applyClient(p, out)
	w.release(out)
}

// schedulePoll arranges the application thread's next poll(). A thread in
// poll() (caught up, or just done with the previous batch) polls again at
// once; one processing a batch polls when the batch is done, like any
// input that waits for it.
func (w *world) schedulePoll(p *process) {
	if p.pollPending {
		return
	}
	p.pollPending = true
	w.stepClientNow(p, p.incarnation, AppThread, clientInput{kind: inputPoll})
}

// pollLoop brings the application thread's poll loop up to now, the way
// ClassicKafkaConsumer.poll and AsyncKafkaConsumer.poll run it: poll()
// returns up to max_poll_records of what is fetched for the member's
// partitions, the application processes them, and calls poll() again
// when it is done. Everything the client does in poll() (joining, acting
// on JoinGroup and SyncGroup responses, onJoinComplete and its callbacks,
// the listener callbacks of the consumer protocol) waits for that.
//
// The loop is not stepped batch by batch: a member with no backlog is in
// poll() waiting for records, and acts on an input at once; a member with
// a backlog is inside a batch whose bounds are worked out when something
// needs the thread. Its batches follow each other back to back from the
// last poll() known to have happened (pollAnchor), or, with none, the
// input lands at a uniformly drawn point of a batch (the residual time of
// a batch in progress). The ledger meanwhile counts the member as
// processing at its rate (processing_rate, or the inverse of the mean
// record_processing_time), so lag and downtime do not depend on where the
// batch boundaries fall.
func (w *world) pollLoop(p *process) {
	now := w.k.Now()
	if !p.alive || p.paused || p.stalled || p.appBusy || p.inBatch() || now == p.freeAt {
		return
	}
	batch := w.nextBatch(p)
	if batch <= 0 {
		// Caught up: the thread waits in poll() for records, and a
		// response or a timer wakes it (ConsumerNetworkClient.poll).
		p.freeAt, p.hasAnchor = now, false
		return
	}
	var start time.Duration
	if p.hasAnchor && p.pollAnchor <= now {
		start = p.pollAnchor + (now-p.pollAnchor)/batch*batch
	} else {
		start = now - time.Duration(p.pollRng.Int64N(int64(batch)))
	}
	if start == now {
		// The poll() that starts this batch is now: it handles the input.
		w.polled(p)
		return
	}
	p.batchEnd, p.pollAnchor, p.hasAnchor = start+batch, start+batch, true
	// The poll timer (max.poll.interval.ms) runs from the poll() that
	// returned the batch.
	p.appBlocked = start
}

// nextBatch is how long the batch the next poll() returns takes to
// process: up to max_poll_records of the member's backlog; 0 if it is
// caught up.
func (w *world) nextBatch(p *process) time.Duration {
	// A member that is caught up, as most are most of the time, is told
	// so without a look at its configuration, far down the process.
	backlog := math.Floor(w.ledger.Backlog(p.idx))
	if backlog < 1 {
		return 0
	}
	n := min(float64(p.cfg.MaxPollRecords), backlog)
	if n < 1 {
		return 0
	}
	return w.batchTime(p, int(n))
}

// batchTime is how long the application takes to process n records: each
// drawn from record_processing_time when it is set, else n at
// processing_rate.
func (w *world) batchTime(p *process, n int) time.Duration {
	if p.records == nil {
		return time.Duration(float64(n) / max(p.cfg.ProcessingRate, 1) * float64(time.Second))
	}
	var d time.Duration
	for range n {
		d += p.records.Sample()
	}
	return d
}

// armPoll makes sure that the poll() ending the current batch runs what
// waits for it: queued inputs, a poll asked for, callbacks.
func (w *world) armPoll(p *process) {
	if !p.inBatch() || p.batchDueAt == p.batchEnd {
		return
	}
	p.batchDueAt = p.batchEnd
	inc, at := p.incarnation, p.batchEnd
	w.k.At(at, func() {
		if p.incarnation != inc || p.batchDueAt != at {
			return
		}
		p.batchDueAt = -1
		if p.inBatch() {
			// A pause or a stall moved the end of the batch.
			w.armPoll(p)
			return
		}
		w.polled(p)
		w.drain(p)
	})
}

// polled notes a poll() the application thread made now: inputs of this
// instant are handled in it, and the loop's phase runs from it.
func (w *world) polled(p *process) {
	p.freeAt, p.pollAnchor, p.hasAnchor = w.k.Now(), w.k.Now(), true
}

// returnBatch has the poll() in progress return its batch now, if the
// member has records to process: the application processes it before its
// next poll().
func (w *world) returnBatch(p *process) {
	if batch := w.nextBatch(p); batch > 0 {
		now := w.k.Now()
		p.batchEnd, p.pollAnchor, p.hasAnchor, p.appBlocked = now+batch, now+batch, true, now
	}
}

// pollEvent reports whether the poll() now hands the background thread
// the application's poll event (ClientEnv.PollEvent).
//
// Before 4.2, and for a classic client, every poll() does. From 4.2
// (AsyncKafkaConsumer.checkInflightPoll) poll() submits an AsyncPollEvent
// only when none is in flight. At its first pass it drops the previous
// one if that one is complete and the fetch buffer is empty
// (maybeClearPreviousInflightPoll); a complete one kept because records
// are still buffered is dropped at the end of the same call
// (maybeClearCurrentInflightPoll). So a member working through a backlog
// submits an event at every other poll(), and one with nothing buffered
// at every poll(). The model takes an event as complete by the next
// poll(): its work (the reconciliation check, fetch positions, fetch
// requests) is one pass of the background thread, and a poll() that
// returns records is a batch away. A member with records left after its
// poll() has records buffered at the next: the fetcher asks again for
// every partition it drained (sendPrefetches), and the broker answers at
// once while there is a backlog (fetch.min.bytes=1).
func (w *world) pollEvent(p *process) bool {
	if p.cfg.GroupProtocol != GroupProtocolConsumer || !ReleaseAtLeast(w.sc.KafkaVersion, "4.2") {
		return true
	}
	now := w.k.Now()
	buffered := w.nextBatch(p) > 0
	if p.pollEventAt == now {
		// The same poll(): it submitted its event, if any, already.
		return !buffered
	}
	var sent bool
	switch {
	case !buffered:
		sent = true
	case p.pollEventAt >= 0 && p.pollEventAt == p.appBlocked:
		// The client saw the poll() that returned the batch just done.
		sent = !p.pollEventSent
	default:
		// The client did not see the poll() before this one, so where
		// the member is in the alternation is not known: even odds.
		sent = p.pollRng.IntN(2) == 0
	}
	p.pollEventAt, p.pollEventSent = now, sent
	return sent
}

// runCallbacks starts the next queued callback if its thread is free.
// Callbacks run one at a time, like listener invocations in poll(); those
// of a consumer without a rebalance listener run on the background thread
// (the consumer protocol's membership manager revokes and acknowledges
// there) and need not wait for poll().
func (w *world) runCallbacks(p *process) {
	if len(p.callbacks) == 0 || p.appBusy || p.bgCallback {
		return
	}
	cb := p.callbacks[0]
	if cb.Thread == BackgroundThread {
		if !p.bgRunnable() {
			return
		}
		p.bgCallback = true
	} else {
		w.pollLoop(p)
		if cb.NextPoll && p.appRunnable() {
			// The poll() in progress returns its batch first.
			p.callbacks[0].NextPoll = false
			w.returnBatch(p)
		}
		if !p.appRunnable() {
			w.armPoll(p)
			return
		}
		w.blockApp(p, func() { p.appBusy = true })
	}
	p.callbacks = p.callbacks[1:]
	started := w.k.Now()
	var d time.Duration
	switch cb.Kind {
	case CallbackRevoked:
		w.ledger.StartRevoke(p.idx, cb.Partitions)
		if p.commitsBefore(cb) {
			// commitSync: the OffsetCommit goes out now, and the
			// revocation completes after commit_latency and no sooner
			// than its response (see finishCallback).
			d += p.cfg.CommitLatency
			if w.sendOffsetCommit(p, cb.Thread) {
				p.commitWait = &commitWait{waiting: true}
			}
		}
		if cb.Thread == AppThread {
			d += p.cfg.RevokeCallback
		}
	case CallbackAssigned:
		w.ledger.Assign(p.idx, cb.Partitions)
		w.resumeAutoCommit(p)
		if cb.Thread == AppThread {
			d += p.cfg.AssignCallback
		}
	case CallbackLost:
		if cb.Thread == BackgroundThread {
			// The application finishes the batch it holds, records of
			// the lost partitions included, before its next poll().
			w.pollLoop(p)
			if p.inBatch() {
				w.ledger.HeldBatch(p.idx, cb.Partitions, min(p.batchEnd, w.sc.Duration)-w.k.Now())
			}
		}
		w.ledger.Release(p.idx, cb.Partitions, false, false)
		if cb.Thread == AppThread {
			d += p.cfg.LostCallback
		}
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
	if c := p.commitWait; cb.Kind == CallbackRevoked && c != nil {
		if c.waiting {
			// The commit's response is not in yet: the revocation ends
			// when it arrives, or when the request times out
			// (request.timeout.ms) and the commit has failed.
			inc := p.incarnation
			c.done = func() {
				if p.paused {
					p.finishAfterPause = func() { w.finishCallback(p, cb, started) }
					return
				}
				w.finishCallback(p, cb, started)
			}
			w.k.At(max(w.k.Now(), started+p.cfg.RequestTimeout), func() {
				if p.incarnation == inc && p.commitWait == c {
					w.commitAnswered(p)
				}
			})
			return
		}
		p.commitWait = nil
	}
	if cb.Kind == CallbackRevoked {
		// The revocation's commit, if any, took effect when the
		// coordinator accepted it: what is still uncommitted now is
		// processed again by the next owner.
		w.ledger.Release(p.idx, cb.Partitions, true, false)
	}
	p.metrics.callbacks[cb.Kind] = append(p.metrics.callbacks[cb.Kind], float64(w.k.Now()-started)/float64(time.Millisecond))
	if w.traceOn() {
		w.emit(traceRecord{Event: "callback_end", Member: p.name, Detail: fmt.Sprintf("%s %v", cb.Kind, cb.Partitions)})
	}
	if cb.Thread == BackgroundThread {
		p.bgCallback = false
	} else {
		p.appBusy = false
		// The callbacks ran inside poll(): what else this instant brings
		// is handled in the same poll(). The loop's phase is not kept
		// from here: members handed their partitions at one instant do
		// not go on in lockstep, since fetch times and record times
		// differ, so the next batch boundary is drawn when needed.
		p.freeAt, p.hasAnchor = w.k.Now(), false
	}
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
	if len(p.appInbox) > 0 || len(p.callbacks) > 0 {
		w.armPoll(p)
	}
}
