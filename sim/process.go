package sim

import (
	"math/rand/v2"
	"time"
)

// process is one consumer process of the scenario across its incarnations.
// It owns the physical facts the protocol model cannot see: whether the
// process is up, frozen by a GC pause, or has its application thread
// blocked, and the inputs waiting for a blocked thread.
type process struct {
	// The fields read or written on every event of the process come
	// first, packed into three cache lines, so that an event touches few
	// lines of it: a large group's processes do not all fit in a core's
	// cache. The first line is what every message to or from the process
	// reads, the second what a step of its client or a request to the
	// coordinator adds. (A process fills a 960-byte size class of the
	// allocator, whose objects start on 64-byte boundaries.)
	w *World
	// cutOffUntil ends a network partition of the process.
	cutOffUntil time.Duration
	// fixedLatency is the latency when latencyFixed, as it is by
	// default: then a send need not look at the sampler.
	fixedLatency time.Duration
	// lastToCoord and lastFromCoord keep each direction of the connection
	// FIFO, as TCP does: the latest arrival so far in each.
	lastToCoord, lastFromCoord time.Duration
	latencyFixed               bool
	alive                      bool
	// paused freezes both threads until pausedUntil; stalled blocks the
	// application thread until stalledUntil.
	paused, stalled bool
	// appBusy is set while the application thread runs a callback.
	appBusy bool
	// catchingUp is set while a thread that just woke runs the callbacks
	// queued while it was blocked: it processes no record meanwhile.
	catchingUp  bool
	pollPending bool
	closing     bool
	// Derived flags, kept in step by World.update.
	ready       bool
	idle        bool
	incarnation int

	idx    int
	client Client
	// coordTimer is the coordinator timer last set while handling this
	// process's request: its member's session timer, almost always.
	coordTimer *timer
	name       string
	lane       string

	timers    timerSet
	callbacks []Callback
	latency   *Sampler

	appInbox  []queuedInput
	bgInbox   []queuedInput
	idleSince time.Duration
	laneSince time.Duration

	spec    MemberSpec
	patches []ConsumerSettings
	cfg     ConsumerConfig

	pausedUntil, stalledUntil time.Duration
	// finishAfterPause completes a callback whose time ran out during a pause.
	finishAfterPause func()
	appBlocked       time.Duration // when the application thread last stopped polling

	autoCommit EventID
	// autoCommitIdle is set while auto-commit ticks are stopped because
	// the member owns nothing; startedAt anchors their cadence.
	autoCommitIdle bool
	startedAt      time.Duration
	closeDue       EventID

	pollRng *rand.Rand

	idleTotal time.Duration
	// lanes is the member's swim-lane history, in time order.
	lanes      []MemberSegment
	metrics    clientMetrics
	joinFailed bool
}

func (p *process) appRunnable() bool {
	return p.alive && !p.paused && !p.stalled && !p.appBusy
}

func (p *process) bgRunnable() bool { return p.alive && !p.paused }

func (p *process) runnable(t Thread) bool {
	if t == BackgroundThread {
		return p.bgRunnable()
	}
	return p.appRunnable()
}

// clientMetrics accumulates a member's KIP-429 client metrics across its
// incarnations.
type clientMetrics struct {
	rebalanceStart   time.Duration
	inRebalance      bool
	latencies        []float64 // ms
	failed           int
	lastRebalanceEnd time.Duration
	hasRebalanced    bool
	callbacks        [3][]float64 // ms, by CallbackKind
}

// commitsBefore reports whether a revoke commits the partitions' offsets
// before they are released: the client's own auto-commit (Callback.Commit)
// or the application's listener (commit_on_revoke).
func (p *process) commitsBefore(cb Callback) bool {
	return cb.Kind == CallbackRevoked && ((cb.Commit && p.cfg.EnableAutoCommit) || p.cfg.CommitOnRevoke)
}
