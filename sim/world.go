package sim

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// world is one run in progress: the kernel, the coordinator, the consumer
// processes, the network between them and the ledger that measures it all.
type world struct {
	k       *kernel
	sc      *Scenario
	opts    RunOptions
	streams streams
	models  Models

	metadata []kafka.Topic
	loads    map[string]*topicLoad

	coord       GroupCoordinator
	coordTimers timerSet
	// coordStable is coord.Stable() as of the coordinator's last step. Only
	// a step (a request, a timer, a metadata change) can change it, while
	// convergence is checked after every event.
	coordStable bool
	groupCfg    GroupConfig

	procs  []*process
	byName map[string]int
	// memberProc maps a coordinator member id to its process.
	memberProc map[string]int

	ledger *ledger
	// required is, per topic, whether some live member subscribes to it:
	// the ledger's required partitions, kept as of the last start, stop,
	// subscription change or topic growth (see refreshRequired).
	required   map[string]bool
	rebalances int
	// rebalanceTimes are when the window's rebalances completed.
	rebalanceTimes []time.Duration
	notReady       int
	flips          []flip
	converged      bool
	// rejectedCommits counts the window's offset commits the
	// coordinator rejected.
	rejectedCommits int
	// commitInHand is the OffsetCommit the coordinator is handling,
	// while it does. It points at commitRead, so that reading a commit
	// (every member's, every few seconds) allocates nothing.
	commitInHand *OffsetCommit
	commitRead   OffsetCommit

	disturbances []disturbance
	findings     []Finding

	trace    io.Writer
	traceErr error
	// spare holds Effects buffers for reuse. Applying one model's effects
	// can step another model, so each step takes its own buffer.
	spare []*Effects
	// deliveries and clientSteps hold spent message deliveries and
	// client inputs due now (polls among them) for reuse.
	deliveries  pool[delivery]
	clientSteps pool[clientStep]

	// Pods and autoscaling: names handed out per member, the start-time
	// samplers per template, the jitter stream, the live-process count and
	// the autoscaler, if any.
	podSeq    map[string]int
	podStarts map[*PodTemplate]*sampler
	podRng    *rand.Rand
	replicas  replicaCount
	scaler    *autoscaler
	// memberIDs mints the coordinator's member ids.
	memberIDs *MemberIDs
}

func (w *world) effects() *Effects {
	if n := len(w.spare); n > 0 {
		e := w.spare[n-1]
		w.spare = w.spare[:n-1]
		e.Reset()
		return e
	}
	return &Effects{}
}

func (w *world) release(e *Effects) { w.spare = append(w.spare, e) }

type flip struct {
	at time.Duration
	ok bool
}

// RunOptions tune one run.
type RunOptions struct {
	// Protocol is the run's protocol shorthand (eager, cooperative, nextgen).
	Protocol string
	// Seed overrides the scenario's seed when non-zero.
	Seed uint64
	// Trace, when set, receives a JSONL record of every message and state change.
	Trace io.Writer
	// Timeline records the per-partition ownership history and the
	// per-member activity lanes (large for big groups: they grow with
	// partitions and members times rebalances).
	Timeline bool
	// ShuffleTies orders simultaneous events randomly (from the seed).
	ShuffleTies bool
	// SampleStep is the chart sampling interval; 0 picks about 600 samples.
	SampleStep time.Duration
	// StartDelays[m][n-1] delays the start of member m's n-th process
	// by that much: the scenario's start or restart stays where it is
	// (a disturbance at the same instant, the measurement window opening
	// where it did), and the process comes up later. Real consumers take
	// their own time from being started to their first heartbeat, and
	// where a member's heartbeats fall follows from it; comparing with a
	// real run, this gives each simulated process its real counterpart's
	// start and so its heartbeat phase.
	StartDelays map[string][]time.Duration
	// MemberIDs[m][n-1] are the member ids member m's n-th process is
	// given, in the order the coordinator hands them out; past them, ids
	// are drawn from the seed (see MemberIDs). Comparing with a real run,
	// this gives each simulated member its real counterpart's id, and so
	// the real order of the coordinator's maps and the assignors.
	MemberIDs map[string][][]string
}

// Run simulates sc under one protocol and returns its result.
func Run(sc *Scenario, models Models, opts RunOptions) (*Result, error) {
	if err := checkRunnable(sc); err != nil {
		return nil, err
	}
	seed := sc.Seed
	if opts.Seed != 0 {
		seed = opts.Seed
	}
	w := &world{
		k: newKernel(), sc: sc, opts: opts, streams: newStreams(seed), models: models,
		loads:  map[string]*topicLoad{},
		byName: map[string]int{}, memberProc: map[string]int{}, trace: opts.Trace,
		podSeq: map[string]int{}, podStarts: map[*PodTemplate]*sampler{},
	}
	w.podRng = w.streams.Stream("pod/jitter")
	w.memberIDs = newMemberIDs(w.streams, opts.MemberIDs)
	if opts.ShuffleTies {
		r := w.streams.Stream("kernel/ties")
		w.k.ShuffleTies(r.Uint64)
	}
	w.k.AfterEach(w.checkConvergence)
	w.groupCfg = ResolveGroupConfigFor(sc.Group, sc.KafkaVersion)
	w.ledger = newLedger(w.k.Now, windowStart(sc), opts.Timeline)
	if sc.StuckAfter > 0 {
		w.ledger.stuckAfter = sc.StuckAfter
	}
	for _, t := range sc.Topics {
		w.metadata = append(w.metadata, kafka.Topic{Name: t.Name, Partitions: t.Partitions})
		w.loads[t.Name] = newTopicLoad(t, w.streams)
	}
	w.coord = models.NewCoordinator(w.groupCfg)
	w.coordStable = w.coord.Stable()
	for _, m := range sc.Members {
		if _, err := w.addProcess(m); err != nil {
			return nil, err
		}
	}
	w.required = map[string]bool{}
	total := 0
	for _, t := range w.metadata {
		total += int(t.Partitions)
	}
	w.ledger.reserve(total)
	for _, t := range w.metadata {
		w.required[t.Name] = true
		for p := int32(0); p < t.Partitions; p++ {
			w.ledger.addPartition(kafka.TopicPartition{Topic: t.Name, Partition: p}, w.loads[t.Name].rate(p), w.loads[t.Name].curve, true)
		}
	}
	for _, t := range sc.Topics {
		for _, step := range t.Load {
			w.k.At(step.At, func() { w.ledger.SetLoad(t.Name) })
		}
	}
	w.converged = w.ledger.Converged()
	w.flips = append(w.flips, flip{0, w.converged})
	if err := checkStartDelays(sc, opts.StartDelays); err != nil {
		return nil, err
	}
	for _, p := range w.procs {
		p := p
		w.k.At(p.spec.Start, func() { w.startDelayed(p) })
		if p.spec.Start > 0 {
			w.disturb(disturbance{kind: string(EventStart), members: []string{p.name}, start: p.spec.Start, end: p.spec.Start, label: "start " + p.name})
		}
	}
	for _, ev := range sc.Events {
		w.schedule(ev)
	}
	if sc.Autoscaler != nil {
		w.startAutoscaler(sc.Autoscaler)
	}
	step := opts.SampleStep
	if step <= 0 {
		step = max(sc.Duration/600, 100*time.Millisecond)
	}
	series := &Series{Step: sec(step)}
	var sample func()
	sample = func() {
		w.sample(series)
		if next := w.k.Now() + step; next <= sc.Duration {
			w.k.At(next, sample)
		}
	}
	w.k.At(0, sample)
	w.k.RunUntil(sc.Duration)
	if w.traceErr != nil {
		return nil, fmt.Errorf("scenario %s: writing trace: %w", sc.Name, w.traceErr)
	}
	return w.result(series), nil
}

// checkStartDelays refuses a delay for a member the scenario does not
// have and a negative one.
func checkStartDelays(sc *Scenario, delays map[string][]time.Duration) error {
	if len(delays) == 0 {
		return nil
	}
	known := map[string]bool{}
	for _, m := range sc.Members {
		known[m.ID] = true
	}
	names := make([]string, 0, len(delays))
	for name := range delays {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !known[name] {
			return fmt.Errorf("scenario %s: start delay for %q, who is no member", sc.Name, name)
		}
		for i, d := range delays[name] {
			if d < 0 {
				return fmt.Errorf("scenario %s: start delay of %q's process %d is negative (%s)", sc.Name, name, i+1, d)
			}
		}
	}
	return nil
}

func checkRunnable(sc *Scenario) error {
	switch {
	case sc == nil:
		return fmt.Errorf("no scenario")
	case sc.Duration <= 0:
		return fmt.Errorf("scenario %s: duration must be positive", sc.Name)
	case len(sc.Topics) == 0:
		return fmt.Errorf("scenario %s: no topics", sc.Name)
	case len(sc.Members) == 0:
		return fmt.Errorf("scenario %s: no members", sc.Name)
	}
	if vs := ConsumerGroupBounds(ResolveGroupConfigFor(sc.Group, sc.KafkaVersion)); len(vs) > 0 {
		return fmt.Errorf("scenario %s: %w", sc.Name, vs[0])
	}
	return checkOperations(sc)
}

// windowStart is the first disturbance: the first event, or the first
// member that starts after time zero.
func windowStart(sc *Scenario) time.Duration {
	start := time.Duration(-1)
	consider := func(t time.Duration) {
		if t > 0 && (start < 0 || t < start) {
			start = t
		}
	}
	for _, m := range sc.Members {
		consider(m.Start)
	}
	for _, e := range sc.Events {
		consider(e.At)
		if e.At == 0 {
			return 0
		}
	}
	if start < 0 {
		return 0
	}
	return start
}

func (w *world) checkConvergence() {
	ok := w.notReady == 0 && w.ledger.Converged() && w.coordStable
	if ok != w.converged {
		w.converged = ok
		w.flips = append(w.flips, flip{w.k.Now(), ok})
	}
}

func (w *world) clientEnv(p *process) ClientEnv {
	// Where the poll loop is decides when the application last polled.
	w.pollLoop(p)
	last := w.k.Now()
	if !p.appRunnable() {
		last = p.appBlocked
	}
	return ClientEnv{Now: w.k.Now(), LastPoll: last, Metadata: w.metadata, Release: w.sc.KafkaVersion}
}

func (w *world) coordEnv() CoordinatorEnv {
	return CoordinatorEnv{Now: w.k.Now(), Metadata: w.metadata, Release: w.sc.KafkaVersion, MemberIDs: w.memberIDs}
}

func (w *world) applyClient(p *process, out *Effects) {
	sends, timers, cbs, notes, wantPoll := out.Sends, out.Timers, out.Callbacks, out.Notes, out.WantPoll
	self := p.endpoint(p.incarnation)
	if out.CommitOffsets && p.cfg.EnableAutoCommit {
		// Sent before the effects' own requests: the connection is FIFO,
		// so onJoinPrepare's commit reaches the coordinator before
		// anything that follows it.
		w.awaitCommit(p, w.sendOffsetCommit(p, AppThread))
	}
	// The effects are read in place: a note is large, and most steps
	// set a timer or two.
	for i := range notes {
		w.clientNote(p, &notes[i])
	}
	for i := range sends {
		s := &sends[i]
		w.send(p, self, s.To, s.Msg, s.Thread)
	}
	for i := range timers {
		w.setTimer(&p.timers, p, &timers[i], nil)
	}
	if len(cbs) > 0 {
		p.callbacks = append(p.callbacks, cbs...)
	}
	if wantPoll {
		w.schedulePoll(p)
	}
	w.runCallbacks(p)
	w.update(p)
	if p.closing && p.client != nil && p.client.Closed() {
		w.stopProcess(p, true)
	}
}

// applyCoordinator applies the coordinator's effects, after each of its
// steps, and notes whether the group is now stable. sender is the process
// whose request the coordinator just handled, nil after a timer: most
// messages answer it, and knowing it saves a lookup by name.
func (w *world) applyCoordinator(out *Effects, sender *process) {
	w.coordStable = w.coord.Stable()
	sends, timers, notes := out.Sends, out.Timers, out.Notes
	for i := range notes {
		w.coordNote(&notes[i])
	}
	for i := range sends {
		s := &sends[i]
		p := sender
		if p == nil || p.name != s.To.Process {
			var ok bool
			if p, ok = w.procOf(s.To); !ok {
				continue
			}
		}
		if r, ok := s.Msg.(OffsetCommitResponse); ok {
			var pos *Positions
			if w.commitInHand != nil {
				pos = w.commitInHand.positions
			}
			w.committed(p, s.To, pos, r)
			if len(r.Rejected) > 0 && w.commitInHand != nil {
				// Only a rejection reaches the client's handler, after
				// this step: it gets a copy of the request.
				sent := *w.commitInHand
				r.sent = &sent
			}
			s.Msg = r
		}
		w.answered(p, s.To.Incarnation)
		w.send(p, Coordinator, s.To, s.Msg, s.To.thread)
	}
	var last **timer
	if sender != nil {
		last = &sender.coordTimer
	}
	for i := range timers {
		w.setTimer(&w.coordTimers, nil, &timers[i], last)
	}
}

// pool holds spent event handlers of one kind for reuse: deliveries and
// polls are a large share of all events, and a pooled one costs no
// allocation.
type pool[T any] struct{ spare []*T }

// get returns a zero T, reused if one is spare.
func (p *pool[T]) get() *T {
	if n := len(p.spare); n > 0 {
		x := p.spare[n-1]
		p.spare = p.spare[:n-1]
		return x
	}
	return new(T)
}

// put zeroes x, so that it keeps nothing alive, and keeps it for reuse.
func (p *pool[T]) put(x *T) {
	var zero T
	*x = zero
	p.spare = append(p.spare, x)
}

func (w *world) coordNote(n *Note) {
	switch n.Kind {
	case NoteMemberAdded:
		if i, ok := w.byName[n.Process]; ok {
			w.memberProc[n.MemberID] = i
			w.ledger.SetMember(i, +1)
			w.update(w.procs[i])
		}
	case NoteMemberRemoved:
		if i, ok := w.memberProc[n.MemberID]; ok {
			delete(w.memberProc, n.MemberID)
			w.ledger.SetMember(i, -1)
			w.update(w.procs[i])
		}
	case NoteRebalance:
		if w.k.Now() >= w.ledger.windowStart {
			w.rebalances++
			w.rebalanceTimes = append(w.rebalanceTimes, w.k.Now())
		}
	}
	if w.traceOn() {
		w.emit(traceRecord{Event: string(n.Kind), Member: n.MemberID, Detail: fmt.Sprintf("%s %s", n.Process, n.Detail)})
	}
}

// setDerived records p's readiness for convergence and its idleness,
// keeping the count of unready processes and the idle time.
func (w *world) setDerived(p *process, ready, idle bool) {
	if ready != p.ready {
		if ready {
			w.notReady--
		} else {
			w.notReady++
		}
		p.ready = ready
	}
	if idle != p.idle {
		if now := w.k.Now(); idle {
			p.idleSince = now
		} else {
			p.idleTotal += w.ledger.overlap(p.idleSince, now)
		}
		p.idle = idle
	}
}

// update recomputes p's derived flags: readiness for convergence, idleness,
// and, for the member timeline, its swim lane. It runs after every step of
// the process, so the process's own flags are tested before the client is
// asked, and without a timeline the lane is not worked out at all.
func (w *world) update(p *process) {
	lp := w.ledger.procs[p.idx]
	ready := !p.alive || (lp.member > 0 && p.client != nil && !p.closing && len(p.callbacks) == 0 && !p.appBusy && !p.bgCallback && p.client.Settled())
	owns := w.ledger.Owns(p.idx)
	// The client is asked only where its answer is used.
	rebalancing := (owns == 0 || w.opts.Timeline) && p.client != nil && p.client.Rebalancing()
	w.setDerived(p, ready, p.alive && !p.paused && owns == 0 && rebalancing)
	if !w.opts.Timeline {
		return
	}
	now := w.k.Now()
	lane := "idle"
	switch {
	case !p.alive:
		lane = "down"
	case p.paused:
		lane = "paused"
	case p.stalled:
		lane = "stalled"
	case p.client != nil && p.client.Fenced():
		lane = "fenced"
	case rebalancing:
		lane = "rebalancing"
	case owns > 0:
		lane = "processing"
	}
	if lane != p.lane {
		if now > p.laneSince {
			p.lanes = append(p.lanes, MemberSegment{Member: p.name, State: p.lane, Start: sec(p.laneSince), End: sec(now)})
		}
		p.lane, p.laneSince = lane, now
	}
}
