package sim

import (
	"time"
)

// kernel is the discrete-event core: a virtual clock and a queue of pending
// events ordered by (time, key). It is single-threaded by design; a run
// never starts a goroutine, so the order of events is the whole truth
// about what happened.
//
// The key is the event's sequence number, so simultaneous events run in
// the order they were scheduled, unless tie shuffling is on: then it is
// drawn from a random stream, so they run in a seed-determined but
// otherwise arbitrary order. (Two equal 64-bit draws for the same instant
// would still run in an order fixed by the seed.)
type kernel struct {
	now time.Duration
	seq uint64
	// Pending events wait in one of five queues, or in a lane (below).
	// Events scheduled well ahead (timers: heartbeats, session timeouts)
	// wait in the later heap. Events due soon (messages in flight,
	// callbacks, polls) go to the inOrder queue when they come no earlier
	// than its last event, and to the soon heap otherwise: with a
	// constant network latency every message is scheduled in order, and
	// most events are messages, so most events never meet a heap at all.
	// The next event is the earliest of the five heads, so the order is
	// the same as with one queue.
	inOrder     eventFIFO
	soon, later eventQueue
	// atNow takes the events scheduled for the current instant that come
	// too early for inOrder, whose last event is a message still in
	// flight: a callback or poll() a step asks for at once. They come in
	// order, and a rebalance of a big group asks for one per member, so
	// in the soon heap they would deepen it for every event there.
	atNow eventFIFO
	// far holds the events scheduled a minute or more ahead that have no
	// lane, such as a rolling restart's planned bounces: kept out of the
	// later heap, they do not deepen it for the timers that churn there.
	far eventQueue
	// lanes keep the later heap small. Events scheduled the same delay
	// ahead, such as every member's next heartbeat, come in order, so
	// each such stream waits in a FIFO lane of its own and only the
	// lane's first event sits in the later heap. When that event runs,
	// the lane's next one takes its place at the top of the heap, which
	// costs a step or two down rather than a pop and a push.
	//
	// A delay may take one of two lanes, picked by a hash of the delay,
	// so that finding its lane costs two comparisons. Should three
	// periodic delays want the same two, the third waits in the heap, in
	// order all the same.
	lanes [laneCount]eventFIFO
	// laneDelay is each lane's delay, 0 while the lane is empty and free.
	laneDelay [laneCount]time.Duration
	// seenDelay is, by a delay's first lane, the delay of the last event
	// queued there without joining a lane. A free lane goes to a delay
	// seen there before, one that repeats, so that one-off events (a
	// restart planned for minute five) do not hold lanes idle.
	seenDelay [laneCount]time.Duration
	// slots hold each queued event's handler and sequence number, side
	// by side; freeSlots are the slots not in use.
	slots     []slot
	freeSlots []uint32
	// canceled is a bitset indexed by sequence number: cheaper than a map
	// on the hot path, at one bit per event ever scheduled.
	canceled []uint64
	executed uint64
	// shuffle, when non-nil, draws tie-breakers for simultaneous events.
	shuffle func() uint64
	// afterEach, when non-nil, runs after every event.
	afterEach func()
}

// eventID identifies a scheduled event so that it can be cancelled.
type eventID uint64

// newKernel returns a kernel at virtual time zero.
func newKernel() *kernel {
	return &kernel{}
}

// ShuffleTies makes the kernel order simultaneous events by draws from next
// instead of by scheduling order.
func (k *kernel) ShuffleTies(next func() uint64) { k.shuffle = next }

// AfterEach sets a function to run after every event: the place for
// invariant checks that must see every state the run passes through.
func (k *kernel) AfterEach(fn func()) { k.afterEach = fn }

// Now is the current virtual time.
func (k *kernel) Now() time.Duration { return k.now }

// Executed is the number of events run so far.
func (k *kernel) Executed() uint64 { return k.executed }

// handler is what an event does when it runs. One-off actions are plain
// funcs (funcHandler); the simulator's most frequent events, message
// deliveries and timers, are long-lived or pooled structs, so scheduling
// one allocates nothing: a pointer or a func fits in an interface as is.
type handler interface{ fire() }

type funcHandler func()

func (f funcHandler) fire() { f() }

// At schedules fn at virtual time t (clamped to now: the past cannot be
// scheduled) and returns an id for Cancel.
func (k *kernel) At(t time.Duration, fn func()) eventID { return k.schedule(t, funcHandler(fn)) }

func (k *kernel) schedule(t time.Duration, h handler) eventID {
	if t < k.now {
		t = k.now
	}
	k.seq++
	key := k.seq
	if k.shuffle != nil {
		key = k.shuffle()
	}
	var i uint32
	if n := len(k.freeSlots); n > 0 {
		i = k.freeSlots[n-1]
		k.freeSlots = k.freeSlots[:n-1]
		k.slots[i] = slot{h, k.seq}
	} else {
		i = uint32(len(k.slots))
		k.slots = append(k.slots, slot{h, k.seq})
	}
	e := event{at: t, key: key, slot: i}
	switch {
	case t-k.now >= soonWithin:
		k.pushLater(e, t-k.now)
	case k.inOrder.len() == 0 || !e.before(k.inOrder.last()):
		k.inOrder.push(e)
	case t == k.now && (k.atNow.len() == 0 || !e.before(k.atNow.last())):
		k.atNow.push(e)
	default:
		k.soon.push(e)
	}
	return eventID(k.seq)
}

// slot is a queued event's handler and sequence number.
type slot struct {
	h   handler
	seq uint64
}

// take frees slot i and returns its handler and sequence number.
func (k *kernel) take(i uint32) (handler, uint64) {
	s := k.slots[i]
	k.slots[i].h = nil
	k.freeSlots = append(k.freeSlots, i)
	return s.h, s.seq
}

// After schedules fn d after now.
func (k *kernel) After(d time.Duration, fn func()) eventID { return k.At(k.now+d, fn) }

// Cancel stops a scheduled event from running. Cancelling an event that
// already ran is a no-op. Cancellation is lazy: the event stays queued and is
// dropped when it reaches the head, which keeps Cancel O(1).
func (k *kernel) Cancel(id eventID) {
	if id == 0 || uint64(id) > k.seq {
		return
	}
	word := uint64(id) / 64
	for uint64(len(k.canceled)) <= word {
		k.canceled = append(k.canceled, 0)
	}
	k.canceled[word] |= 1 << (uint64(id) % 64)
}

func (k *kernel) isCanceled(seq uint64) bool {
	word := seq / 64
	return word < uint64(len(k.canceled)) && k.canceled[word]&(1<<(seq%64)) != 0
}

// Step runs the next event, if any at or before until, and reports whether
// it ran one.
func (k *kernel) Step(until time.Duration) bool {
	for {
		ev, ok := k.popNext(until)
		if !ok {
			return false
		}
		h, seq := k.take(ev.slot)
		if k.isCanceled(seq) {
			continue
		}
		k.now = ev.at
		k.executed++
		h.fire()
		if k.afterEach != nil {
			k.afterEach()
		}
		return true
	}
}

// soonWithin is how far ahead an event may be scheduled to wait with the
// events due soon: beyond network latencies, short of heartbeat intervals.
// An event farWithin ahead or more, without a lane, waits in the far heap:
// beyond session and request timeouts.
const (
	soonWithin = 100 * time.Millisecond
	farWithin  = time.Minute
)

// popNext removes and returns the earliest pending event if it is due at
// or before until.
func (k *kernel) popNext(until time.Duration) (event, bool) {
	var head *event
	from := 0
	if k.inOrder.len() > 0 {
		head, from = k.inOrder.peek(), 1
	}
	if k.soon.len() > 0 && (head == nil || k.soon.peek().before(head)) {
		head, from = k.soon.peek(), 2
	}
	if k.later.len() > 0 && (head == nil || k.later.peek().before(head)) {
		head, from = k.later.peek(), 3
	}
	if k.far.len() > 0 && (head == nil || k.far.peek().before(head)) {
		head, from = k.far.peek(), 4
	}
	if k.atNow.len() > 0 && (head == nil || k.atNow.peek().before(head)) {
		head, from = k.atNow.peek(), 5
	}
	if head == nil || head.at > until {
		return event{}, false
	}
	switch from {
	case 1:
		return k.inOrder.pop(), true
	case 2:
		return k.soon.pop(), true
	case 4:
		return k.far.pop(), true
	case 5:
		return k.atNow.pop(), true
	}
	return k.popLater(), true
}

// laneCount is the number of delay lanes: room for the periodic timers of
// a member (heartbeat, request and session timeouts, metadata refresh,
// auto-commit) and for the bursts a rebalance causes, such as every
// member starting the same callback, with few of them sharing a place.
const (
	laneBits  = 5
	laneCount = 1 << laneBits
)

// pushLater queues e, scheduled delay ahead, for the later heap: in the
// lane of its delay if it comes in order there, or in a free one of its
// two lanes if the delay repeats.
func (k *kernel) pushLater(e event, delay time.Duration) {
	i, j := lanesOf(delay)
	if k.laneDelay[j] == delay {
		i = j
	}
	switch k.laneDelay[i] {
	case delay:
		if l := &k.lanes[i]; !e.before(l.last()) {
			l.push(e)
			return
		}
		// With shuffled ties an event can come before the lane's last
		// one; it waits in the heap.
	default:
		if k.seenDelay[i] != delay {
			break
		}
		free := i
		if k.laneDelay[i] != 0 {
			free = j
		}
		if k.laneDelay[free] == 0 {
			k.laneDelay[free] = delay
			k.lanes[free].push(e)
			e.lane = uint8(free + 1)
		}
	}
	k.seenDelay[i] = delay
	if delay >= farWithin && e.lane == 0 {
		k.far.push(e)
		return
	}
	k.later.push(e)
}

// lanesOf are the two lanes delay may take: two fields of the top bits of
// a multiplicative hash, which spreads delays that are round numbers of
// milliseconds.
func lanesOf(delay time.Duration) (int, int) {
	h := uint64(delay) * 0x9E3779B97F4A7C15
	return int(h >> (64 - laneBits)), int(h >> (64 - 2*laneBits) & (laneCount - 1))
}

// popLater removes the later heap's first event. If it heads a lane, the
// lane's next event replaces it in the heap.
func (k *kernel) popLater() event {
	top := *k.later.peek()
	if top.lane == 0 {
		return k.later.pop()
	}
	i := top.lane - 1
	l := &k.lanes[i]
	l.pop()
	if l.len() == 0 {
		k.laneDelay[i] = 0
		k.later.pop()
	} else {
		next := *l.peek()
		next.lane = top.lane
		k.later.replaceTop(next)
	}
	top.lane = 0
	return top
}

// RunUntil runs every event up to and including time until, then advances
// the clock to until.
func (k *kernel) RunUntil(until time.Duration) {
	for k.Step(until) {
	}
	if k.now < until {
		k.now = until
	}
}

// event is a queued event's place in the order and the slot of its
// handler: 24 bytes and no pointer, so moving events about the heap is
// cheap and costs the garbage collector nothing. In the later heap, lane
// marks (from 1) the event that stands for its delay lane.
type event struct {
	at   time.Duration
	key  uint64
	slot uint32
	lane uint8
}

func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

// eventFIFO is a queue of events that arrive in order.
type eventFIFO struct {
	items []event
	head  int
}

func (f *eventFIFO) len() int     { return len(f.items) - f.head }
func (f *eventFIFO) peek() *event { return &f.items[f.head] }
func (f *eventFIFO) last() *event { return &f.items[len(f.items)-1] }

func (f *eventFIFO) push(e event) {
	if f.head > 0 && f.head >= len(f.items)/2 {
		// Reuse the front half rather than grow: the queue stays short.
		n := copy(f.items, f.items[f.head:])
		f.items, f.head = f.items[:n], 0
	}
	f.items = append(f.items, e)
}

func (f *eventFIFO) pop() event {
	e := f.items[f.head]
	f.head++
	if f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
	}
	return e
}

// eventQueue is a 4-ary min-heap of events stored by value. It is written
// out rather than built on container/heap to avoid the interface boxing of
// every push and pop. Four children per node halve the depth of a binary
// heap, and the four sit side by side in memory. A sift moves a hole and
// writes the moving event once, instead of swapping at every level; a pop
// takes the hole all the way down along the least children and then lifts
// the heap's last event into it from there (Floyd's method), which saves
// comparing that event, almost always a late one, at every level.
type eventQueue struct{ items []event }

const heapArity = 4

func (q *eventQueue) len() int     { return len(q.items) }
func (q *eventQueue) peek() *event { return &q.items[0] }

func (q *eventQueue) push(e event) {
	q.items = append(q.items, event{})
	q.up(len(q.items)-1, e)
}

// up moves e from the hole at i towards the root to its place.
func (q *eventQueue) up(i int, e event) {
	items := q.items
	for i > 0 {
		parent := (i - 1) / heapArity
		if !e.before(&items[parent]) {
			break
		}
		items[i] = items[parent]
		i = parent
	}
	items[i] = e
}

// replaceTop removes the first event and adds e, moving e down from the
// top: for an event due soon after the one it replaces, a step or two.
func (q *eventQueue) replaceTop(e event) {
	items := q.items
	n := len(items)
	i := 0
	for {
		m := leastChild(items, i, n)
		if m < 0 || !items[m].before(&e) {
			break
		}
		items[i] = items[m]
		i = m
	}
	items[i] = e
}

// leastChild returns the least of the children of node i among the first
// n items, or -1 if i is a leaf.
func leastChild(items []event, i, n int) int {
	first := heapArity*i + 1
	if first >= n {
		return -1
	}
	m := first
	for c, end := first+1, min(first+heapArity, n); c < end; c++ {
		if items[c].before(&items[m]) {
			m = c
		}
	}
	return m
}

func (q *eventQueue) pop() event {
	items := q.items
	top := items[0]
	n := len(items) - 1
	last := items[n]
	items = items[:n]
	q.items = items
	if n == 0 {
		return top
	}
	i := 0
	for {
		m := leastChild(items, i, n)
		if m < 0 {
			break
		}
		items[i] = items[m]
		i = m
	}
	q.up(i, last)
	return top
}
