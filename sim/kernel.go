package sim

import (
	"time"
)

// Kernel is the discrete-event core: a virtual clock and a queue of pending
// events ordered by (time, tie, sequence). It is single-threaded by design;
// a run never starts a goroutine, so the order of events is the whole truth
// about what happened.
//
// The tie field is zero unless tie shuffling is on; then it is drawn from a
// random stream, so events scheduled for the same instant run in a
// seed-determined but otherwise arbitrary order. The sequence number keeps
// the order total either way.
type Kernel struct {
	now   time.Duration
	seq   uint64
	queue eventQueue
	// canceled is a bitset indexed by sequence number: cheaper than a map
	// on the hot path, at one bit per event ever scheduled.
	canceled []uint64
	executed uint64
	// shuffle, when non-nil, draws tie-breakers for simultaneous events.
	shuffle func() uint64
	// afterEach, when non-nil, runs after every event.
	afterEach func()
}

// EventID identifies a scheduled event so that it can be cancelled.
type EventID uint64

// NewKernel returns a kernel at virtual time zero.
func NewKernel() *Kernel {
	return &Kernel{}
}

// ShuffleTies makes the kernel order simultaneous events by draws from next
// instead of by scheduling order.
func (k *Kernel) ShuffleTies(next func() uint64) { k.shuffle = next }

// AfterEach sets a function to run after every event: the place for
// invariant checks that must see every state the run passes through.
func (k *Kernel) AfterEach(fn func()) { k.afterEach = fn }

// Now is the current virtual time.
func (k *Kernel) Now() time.Duration { return k.now }

// Executed is the number of events run so far.
func (k *Kernel) Executed() uint64 { return k.executed }

// At schedules fn at virtual time t (clamped to now: the past cannot be
// scheduled) and returns an id for Cancel.
func (k *Kernel) At(t time.Duration, fn func()) EventID {
	if t < k.now {
		t = k.now
	}
	k.seq++
	var tie uint64
	if k.shuffle != nil {
		tie = k.shuffle()
	}
	k.queue.push(event{at: t, tie: tie, seq: k.seq, fn: fn})
	return EventID(k.seq)
}

// After schedules fn d after now.
func (k *Kernel) After(d time.Duration, fn func()) EventID { return k.At(k.now+d, fn) }

// Cancel stops a scheduled event from running. Cancelling an event that
// already ran is a no-op. Cancellation is lazy: the event stays queued and is
// dropped when it reaches the head, which keeps Cancel O(1).
func (k *Kernel) Cancel(id EventID) {
	if id == 0 || uint64(id) > k.seq {
		return
	}
	word := uint64(id) / 64
	for uint64(len(k.canceled)) <= word {
		k.canceled = append(k.canceled, 0)
	}
	k.canceled[word] |= 1 << (uint64(id) % 64)
}

func (k *Kernel) isCanceled(seq uint64) bool {
	word := seq / 64
	return word < uint64(len(k.canceled)) && k.canceled[word]&(1<<(seq%64)) != 0
}

// Step runs the next event, if any at or before until, and reports whether
// it ran one.
func (k *Kernel) Step(until time.Duration) bool {
	for k.queue.len() > 0 {
		head := k.queue.peek()
		if head.at > until {
			return false
		}
		ev := k.queue.pop()
		if k.isCanceled(ev.seq) {
			continue
		}
		k.now = ev.at
		k.executed++
		ev.fn()
		if k.afterEach != nil {
			k.afterEach()
		}
		return true
	}
	return false
}

// RunUntil runs every event up to and including time until, then advances
// the clock to until.
func (k *Kernel) RunUntil(until time.Duration) {
	for k.Step(until) {
	}
	if k.now < until {
		k.now = until
	}
}

type event struct {
	at  time.Duration
	tie uint64
	seq uint64
	fn  func()
}

func (a *event) before(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.tie != b.tie {
		return a.tie < b.tie
	}
	return a.seq < b.seq
}

// eventQueue is a binary min-heap of events stored by value. It is written
// out rather than built on container/heap to avoid the interface boxing of
// every push and pop, which is most of the cost per event.
type eventQueue struct{ items []event }

func (q *eventQueue) len() int     { return len(q.items) }
func (q *eventQueue) peek() *event { return &q.items[0] }

func (q *eventQueue) push(e event) {
	q.items = append(q.items, e)
	i := len(q.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !q.items[i].before(&q.items[parent]) {
			break
		}
		q.items[i], q.items[parent] = q.items[parent], q.items[i]
		i = parent
	}
}

func (q *eventQueue) pop() event {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items[last] = event{}
	q.items = q.items[:last]
	i, n := 0, last
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q.items[r].before(&q.items[l]) {
			m = r
		}
		if !q.items[m].before(&q.items[i]) {
			break
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
	return top
}
