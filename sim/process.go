package sim

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// process is one consumer process of the scenario across its incarnations.
// It owns the physical facts the protocol model cannot see: whether the
// process is up, frozen by a GC pause, or has its application thread
// blocked, and the inputs waiting for a blocked thread.
type process struct {
	// The fields read or written on every event of the process come
	// first, packed into four cache lines, so that an event touches few
	// lines of it: a large group's processes do not all fit in a core's
	// cache. The first line is what every message to or from the process
	// reads; the next what a step of its client or a request to the
	// coordinator adds: the poll loop's state, which every step of the
	// client works out, the callbacks and the connections, and then the
	// timers. (A process fills a 1,536-byte size class of the allocator,
	// whose objects start on 64-byte boundaries.)
	w *world
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
	// Derived flags, kept in step by world.update.
	ready       bool
	idle        bool
	incarnation int

	idx    int
	client Client
	// coordTimer is the coordinator timer last set while handling this
	// process's request: its member's session timer, almost always.
	coordTimer *timer
	name       string
	// The poll loop (see pollLoop): the application thread processes the
	// batch its last poll() returned until batchEnd, and handles nothing
	// else meanwhile. pollAnchor is a poll() known to have happened
	// (hasAnchor), from which the loop of a saturated member keeps its
	// phase; freeAt is an instant at which the thread is known to be in
	// poll(), so that every input of that instant is handled in it.
	batchEnd, pollAnchor, freeAt time.Duration
	// batchDueAt is when the poll() ending the current batch is scheduled
	// to run what waits for it, if anything does.
	batchDueAt time.Duration
	// pollEventAt is the poll() at which the client last learned whether
	// it handed the background thread a poll event (pollEvent), -1 if
	// never; pollEventSent is what it learned.
	pollEventAt time.Duration
	// appBlocked is when the application thread last stopped polling.
	appBlocked    time.Duration
	hasAnchor     bool
	pollEventSent bool
	// bgCallback is set while the background thread runs a callback for a
	// consumer without a rebalance listener.
	bgCallback bool
	callbacks  []Callback
	// conns are the coordinator's ends of the process's connections
	// that hold a request or queue some, one per incarnation.
	conns  []coordinatorConn
	timers timerSet

	lane    string
	latency *sampler

	appInbox  []queuedInput
	bgInbox   []queuedInput
	idleSince time.Duration
	laneSince time.Duration

	// lives counts the processes started so far (RunOptions.StartDelays
	// is indexed by it).
	lives   int
	spec    MemberSpec
	patches []ConsumerSettings
	cfg     ConsumerConfig

	pausedUntil, stalledUntil time.Duration
	// finishAfterPause completes a callback whose time ran out during a pause.
	finishAfterPause func()
	// commitWait is the synchronous commit of the revocation in progress.
	commitWait *commitWait
	// awaitingCommit is set while the client waits for the answer to its
	// onJoinPrepare commit (CommitAwaiter).
	awaitingCommit bool

	autoCommit eventID
	// autoCommitIdle is set while auto-commit ticks are stopped because
	// the member owns nothing; startedAt anchors their cadence.
	autoCommitIdle bool
	// autoCommitQueued is set while an auto-commit waits for poll();
	// autoCommitted is when the last one was sent.
	autoCommitQueued bool
	autoCommitted    time.Duration
	startedAt        time.Duration
	closeDue         eventID

	pollRng *rand.Rand
	// recordRng draws record processing times, derived when an
	// incarnation first needs it; records samples them for the current
	// incarnation when record_processing_time is set.
	recordRng *rand.Rand
	records   *sampler

	idleTotal time.Duration
	// lanes is the member's swim-lane history, in time order.
	lanes      []MemberSegment
	metrics    clientMetrics
	joinFailed bool
	// pod is set while a rollout or an autoscaler manages the process.
	pod *pod
}

// endpoint is the process's end of the connection of one incarnation.
func (p *process) endpoint(incarnation int) Endpoint {
	return Endpoint{Process: p.name, Incarnation: incarnation, slot: int32(p.idx + 1)}
}

// procOf finds the member process of an endpoint: by its slot if the
// simulator made it, else by name.
func (w *world) procOf(e Endpoint) (*process, bool) {
	if e.slot > 0 {
		return w.procs[e.slot-1], true
	}
	i, ok := w.byName[e.Process]
	if !ok {
		return nil, false
	}
	return w.procs[i], true
}

func (p *process) appRunnable() bool {
	return p.alive && !p.paused && !p.stalled && !p.appBusy && !p.inBatch()
}

// inBatch reports whether the application thread is processing the
// records its last poll() returned.
func (p *process) inBatch() bool { return p.w.k.Now() < p.batchEnd }

func (p *process) bgRunnable() bool { return p.alive && !p.paused }

func (p *process) runnable(t Thread) bool {
	if t == BackgroundThread {
		return p.bgRunnable()
	}
	return p.appRunnable()
}

// startDelayed starts p's next process, after its RunOptions.StartDelays
// entry if it has one.
func (w *world) startDelayed(p *process) {
	ds := w.opts.StartDelays[p.name]
	if n := p.lives; !p.alive && n < len(ds) && ds[n] > 0 {
		up := w.k.Now() + ds[n]
		w.lastUntilUp(p.name, up)
		w.k.At(up, func() { w.startProcess(p) })
		return
	}
	w.startProcess(p)
}

func (w *world) startProcess(p *process) {
	if p.alive {
		return
	}
	// A first start without patches runs on the configuration addProcess
	// resolved from the same layers; resolving it again is a tenth of a
	// small run's setup.
	cfg, err := p.cfg, error(nil)
	if p.lives > 0 || len(p.patches) > 0 {
		cfg, err = ResolveConfig(w.sc, w.opts.Protocol, p.spec, p.patches)
	}
	if err == nil {
		var c Client
		c, err = w.models.NewClient(p.endpoint(p.incarnation+1), cfg)
		if err == nil {
			p.incarnation++
			p.lives++
			w.memberIDs.started(Endpoint{Process: p.name, Incarnation: p.incarnation}, p.lives)
			p.cfg, p.client = cfg, c
		}
	}
	if err != nil {
		w.findings = append(w.findings, Finding{Kind: "join_failure", At: sec(w.k.Now()), Members: []string{p.name}, Detail: err.Error()})
		return
	}
	p.alive, p.paused, p.stalled, p.appBusy, p.closing, p.catchingUp = true, false, false, false, false, false
	p.startedAt, p.autoCommitIdle, p.autoCommitQueued, p.autoCommitted = w.k.Now(), false, false, 0
	p.callbacks, p.appInbox, p.bgInbox, p.pollPending, p.commitWait, p.awaitingCommit = nil, nil, nil, false, nil, false
	p.batchEnd, p.hasAnchor, p.freeAt, p.batchDueAt, p.bgCallback = 0, false, -1, -1, false
	p.pollEventAt, p.pollEventSent = -1, false
	w.ledger.procs[p.idx].rate = cfg.Rate()
	p.records = nil
	if cfg.RecordProcessingTime.Kind != "" {
		if p.recordRng == nil {
			p.recordRng = w.streams.Stream("records/" + p.spec.ID)
		}
		p.records = newSampler(cfg.RecordProcessingTime, p.recordRng)
	}
	w.replicasChanged(+1)
	w.syncProcess(p)
	w.refreshRequired()
	if w.traceOn() {
		w.emit(traceRecord{Event: "process_start", Member: p.name, Detail: fmt.Sprintf("incarnation %d group_protocol=%s assignors=%v instance=%q", p.incarnation, cfg.GroupProtocol, cfg.Assignors, cfg.GroupInstanceID)})
	}
	w.update(p)
	w.stepClient(p, BackgroundThread, clientInput{fn: func(c Client, env ClientEnv, out *Effects) { c.Start(env, out) }})
	w.scheduleAutoCommit(p)
}

// scheduleAutoCommit arms the next auto-commit tick: every
// auto_commit_interval from the start of the incarnation, inside poll().
// A member that owns nothing has nothing to commit, so its ticks stop and
// resume, on the same cadence, when it is assigned partitions (see
// resumeAutoCommit): in a large group of mostly idle members those no-op
// ticks would be a tenth of all events.
func (w *world) scheduleAutoCommit(p *process) {
	if !p.cfg.EnableAutoCommit || p.cfg.AutoCommitInterval <= 0 {
		return
	}
	if w.ledger.Owns(p.idx) == 0 {
		p.autoCommitIdle = true
		return
	}
	now, every := w.k.Now(), p.cfg.AutoCommitInterval
	next := p.startedAt + (((now-p.startedAt)/every)+1)*every
	inc := p.incarnation
	p.autoCommit = w.k.At(next, func() {
		if p.incarnation != inc || !p.alive {
			return
		}
		// Auto-commit runs inside poll(): a blocked application thread
		// commits nothing until it polls again, and then once however
		// many intervals it missed (ConsumerCoordinator
		// .maybeAutoCommitOffsetsAsync checks its timer in poll()); a
		// client whose commits fail mid-rebalance commits nothing then.
		if !p.autoCommitQueued {
			p.autoCommitQueued = true
			w.stepClient(p, AppThread, clientInput{fn: func(c Client, _ ClientEnv, _ *Effects) {
				p.autoCommitQueued = false
				if p.autoCommitted == w.k.Now() && p.autoCommitted > 0 {
					return // a late tick and the next one met in one poll()
				}
				if g, ok := c.(CommitGate); !ok || g.CanCommit() {
					if w.sendOffsetCommit(p, AppThread) {
						p.autoCommitted = w.k.Now()
					}
				}
			}})
		}
		w.scheduleAutoCommit(p)
	})
}

// resumeAutoCommit restarts the ticks of a member that had stopped them
// for owning nothing.
func (w *world) resumeAutoCommit(p *process) {
	if p.autoCommitIdle && w.ledger.Owns(p.idx) > 0 {
		p.autoCommitIdle = false
		w.scheduleAutoCommit(p)
	}
}

// stopProcess takes a process down. A crash loses what it processed since
// its last commit. A completed close has revoked its partitions, each
// revocation with its commit sent as an OffsetCommit (ConsumerCoordinator
// .close → maybeAutoCommitOffsetsSync, bounded by the close timeout; the
// consumer protocol's close commits before its revocation): whatever it
// still holds counts as committed only as far as a commit the
// coordinator accepted reached.
func (w *world) stopProcess(p *process, clean bool) {
	if !p.alive {
		return
	}
	if clean {
		w.ledger.Release(p.idx, w.ledger.ownedBy(p.idx), true, false)
	} else {
		w.ledger.ReleaseAll(p.idx)
	}
	w.stopTimers(&p.timers)
	p.timers = timerSet{}
	w.k.Cancel(p.autoCommit)
	w.k.Cancel(p.closeDue)
	p.alive, p.client, p.closing, p.catchingUp = false, nil, false, false
	p.paused, p.stalled, p.appBusy, p.finishAfterPause = false, false, false, nil
	p.batchEnd, p.hasAnchor, p.bgCallback = 0, false, false
	p.callbacks, p.appInbox, p.bgInbox, p.commitWait, p.awaitingCommit = nil, nil, nil, nil, false
	p.incarnation++ // nothing addressed to the old life is delivered
	w.replicasChanged(-1)
	w.syncProcess(p)
	w.refreshRequired()
	if w.traceOn() {
		w.emit(traceRecord{Event: "process_stop", Member: p.name, Detail: map[bool]string{true: "closed", false: "killed"}[clean]})
	}
	w.update(p)
	if p.pod != nil {
		w.podStopped(p.pod)
	}
}

// closeProcess starts a graceful close; the process stops when the client
// reports it closed, or after 30s (the default close timeout).
func (w *world) closeProcess(p *process) {
	w.closeWithin(p, 30*time.Second, "")
}

// closeWithin starts a graceful close that is cut short after timeout: the
// process is killed then, and the trace says why, unless why is "".
func (w *world) closeWithin(p *process, timeout time.Duration, why string) {
	if !p.alive || p.closing {
		return
	}
	p.closing = true
	inc := p.incarnation
	p.closeDue = w.k.At(w.k.Now()+timeout, func() {
		if p.incarnation == inc {
			if why != "" {
				w.findings = append(w.findings, Finding{Kind: "pod_killed", At: sec(w.k.Now()), Members: []string{p.name}, Detail: why})
				if w.traceOn() {
					w.emit(traceRecord{Event: "pod_killed", Member: p.name, Detail: why})
				}
			}
			w.stopProcess(p, false)
		}
	})
	w.stepClient(p, AppThread, clientInput{fn: func(c Client, env ClientEnv, out *Effects) { c.Close(env, out) }})
}

// commitsBefore reports whether a revoke commits the partitions' offsets
// before they are released: the client's own auto-commit (Callback.Commit)
// or the application's listener (commit_on_revoke).
func (p *process) commitsBefore(cb Callback) bool {
	return cb.Kind == CallbackRevoked && ((cb.Commit && p.cfg.EnableAutoCommit) || p.cfg.CommitOnRevoke)
}
