package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// World is one run in progress: the kernel, the coordinator, the consumer
// processes, the network between them and the ledger that measures it all.
type World struct {
	k       *Kernel
	sc      *Scenario
	opts    RunOptions
	streams Streams
	models  Models

	metadata []kafka.Topic
	rates    map[string]float64

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

	ledger *Ledger
	// required is, per topic, whether some live member subscribes to it:
	// the ledger's required partitions, kept as of the last start, stop,
	// subscription change or topic growth (see refreshRequired).
	required   map[string]bool
	rebalances int
	notReady   int
	flips      []flip
	converged  bool

	disturbances []Disturbance
	findings     []Finding

	trace    io.Writer
	traceErr error
	// spare holds Effects buffers for reuse. Applying one model's effects
	// can step another model, so each step takes its own buffer.
	spare []*Effects
	// deliveries and polls hold spent message deliveries and poll events
	// for reuse.
	deliveries pool[delivery]
	polls      pool[pollDue]
}

func (w *World) effects() *Effects {
	if n := len(w.spare); n > 0 {
		e := w.spare[n-1]
		w.spare = w.spare[:n-1]
		e.Reset()
		return e
	}
	return &Effects{}
}

func (w *World) release(e *Effects) { w.spare = append(w.spare, e) }

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
	w := &World{
		k: NewKernel(), sc: sc, opts: opts, streams: NewStreams(seed), models: models,
		rates:  map[string]float64{},
		byName: map[string]int{}, memberProc: map[string]int{}, trace: opts.Trace,
	}
	if opts.ShuffleTies {
		r := w.streams.Stream("kernel/ties")
		w.k.ShuffleTies(r.Uint64)
	}
	w.k.AfterEach(w.checkConvergence)
	w.groupCfg = ResolveGroupConfig(sc.Group)
	w.ledger = newLedger(w.k.Now, windowStart(sc), opts.Timeline)
	for _, t := range sc.Topics {
		w.metadata = append(w.metadata, kafka.Topic{Name: t.Name, Partitions: t.Partitions})
		w.rates[t.Name] = t.Rate
	}
	w.coord = models.NewCoordinator(w.groupCfg)
	w.coordStable = w.coord.Stable()
	for i, m := range sc.Members {
		cfg, err := ResolveConfig(sc, opts.Protocol, m, nil)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		p := &process{w: w, idx: i, name: m.ID, spec: m, cfg: cfg,
			latency: NewSampler(sc.Network.Latency, w.streams.Stream("net/"+m.ID)),
			pollRng: w.streams.Stream("poll/" + m.ID), ready: true, lane: "down"}
		p.fixedLatency, p.latencyFixed = p.latency.Fixed()
		w.procs = append(w.procs, p)
		w.byName[m.ID] = i
		w.ledger.addProcess(m.ID, cfg.ProcessingRate)
	}
	w.required = map[string]bool{}
	for _, t := range w.metadata {
		w.required[t.Name] = true
		for p := int32(0); p < t.Partitions; p++ {
			w.ledger.addPartition(kafka.TopicPartition{Topic: t.Name, Partition: p}, w.rates[t.Name], true)
		}
	}
	w.converged = w.ledger.Converged()
	w.flips = append(w.flips, flip{0, w.converged})
	for _, p := range w.procs {
		p := p
		w.k.At(p.spec.Start, func() { w.startProcess(p) })
		if p.spec.Start > 0 {
			w.disturb(Disturbance{Kind: string(EventStart), Members: []string{p.name}, Start: sec(p.spec.Start), End: sec(p.spec.Start), Label: "start " + p.name})
		}
	}
	for _, ev := range sc.Events {
		w.schedule(ev)
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
	return nil
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

func (w *World) checkConvergence() {
	ok := w.notReady == 0 && w.ledger.Converged() && w.coordStable
	if ok != w.converged {
		w.converged = ok
		w.flips = append(w.flips, flip{w.k.Now(), ok})
	}
}

// --- tracing ---

type traceRecord struct {
	T      float64   `json:"t"`
	Event  string    `json:"ev"`
	From   *Endpoint `json:"from,omitempty"`
	To     *Endpoint `json:"to,omitempty"`
	Msg    string    `json:"msg,omitempty"`
	Body   any       `json:"body,omitempty"`
	Member string    `json:"member,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

func (w *World) traceOn() bool { return w.trace != nil && w.traceErr == nil }

func (w *World) emit(r traceRecord) {
	r.T = sec(w.k.Now())
	b, err := json.Marshal(r)
	if err == nil {
		b = append(b, '\n')
		_, err = w.trace.Write(b)
	}
	if err != nil {
		w.traceErr = err
	}
}

// traceMessage emits r for a message from one endpoint to another. The
// endpoints are copied here, so that only a traced message moves them to
// the heap (inlined, they would move in every caller).
//
//go:noinline
func (w *World) traceMessage(r traceRecord, from, to Endpoint) {
	r.From, r.To = &from, &to
	w.emit(r)
}

// --- effects ---

func (w *World) clientEnv(p *process) ClientEnv {
	last := w.k.Now()
	if !p.appRunnable() {
		last = p.appBlocked
	}
	return ClientEnv{Now: w.k.Now(), LastPoll: last, Metadata: w.metadata}
}

func (w *World) coordEnv() CoordinatorEnv {
	return CoordinatorEnv{Now: w.k.Now(), Metadata: w.metadata}
}

// clientInput is one input to a client model. The frequent ones (a
// message, a timer, a poll) are plain values, so handing one to a client,
// or queueing it for a blocked thread, allocates nothing; rare ones carry
// a func.
type clientInput struct {
	kind  inputKind
	msg   Message // inputReceive
	timer string  // inputTimer
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
func (w *World) stepClient(p *process, t Thread, in clientInput) {
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
func (w *World) runQueued(p *process, q queuedInput) {
	if p.alive && p.incarnation == q.incarnation {
		w.runClient(p, q.in)
	}
}

func (w *World) runClient(p *process, in clientInput) {
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

func (w *World) applyClient(p *process, out *Effects) {
	sends, timers, cbs, notes, wantPoll := out.Sends, out.Timers, out.Callbacks, out.Notes, out.WantPoll
	self := Endpoint{Process: p.name, Incarnation: p.incarnation}
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
func (w *World) applyCoordinator(out *Effects, sender *process) {
	w.coordStable = w.coord.Stable()
	sends, timers, notes := out.Sends, out.Timers, out.Notes
	for i := range notes {
		w.coordNote(&notes[i])
	}
	for i := range sends {
		s := &sends[i]
		p := sender
		if p == nil || p.name != s.To.Process {
			i, ok := w.byName[s.To.Process]
			if !ok {
				continue
			}
			p = w.procs[i]
		}
		w.send(p, Coordinator, s.To, s.Msg, s.Thread)
	}
	var last **timer
	if sender != nil {
		last = &sender.coordTimer
	}
	for i := range timers {
		w.setTimer(&w.coordTimers, nil, &timers[i], last)
	}
}

// send delivers msg after the network's latency, keeping each direction
// of a connection in order, and drops it if either end is cut off.
//
// p is the member process at the other end from the coordinator.
func (w *World) send(p *process, from, to Endpoint, msg Message, thread Thread) {
	now := w.k.Now()
	if now < p.cutOffUntil {
		if w.traceOn() {
			w.traceMessage(traceRecord{Event: "drop", Msg: msg.Kind(), Detail: "network partition"}, from, to)
		}
		return
	}
	latency := p.fixedLatency
	if !p.latencyFixed {
		latency = p.latency.Sample()
	}
	arrive := now + latency
	// One end is the coordinator, the other p: the direction, found once,
	// picks the connection's FIFO and the member end's incarnation.
	toCoordinator := to.Process == CoordinatorProcess
	last, incarnation := &p.lastFromCoord, to.Incarnation
	if toCoordinator {
		last, incarnation = &p.lastToCoord, from.Incarnation
	}
	if arrive < *last {
		arrive = *last
	}
	*last = arrive
	if w.traceOn() {
		w.traceMessage(traceRecord{Event: "send", Msg: msg.Kind(), Body: msg}, from, to)
	}
	d := w.deliveries.get()
	d.p, d.msg, d.thread, d.toCoordinator, d.incarnation = p, msg, thread, toCoordinator, incarnation
	w.k.schedule(arrive, d)
}

// delivery is a message in flight: the kernel event that hands it to its
// receiver. Deliveries are pooled, as they are a large share of all events.
// One end of every message is the coordinator and the other the member
// process p, so a delivery records only the direction and the member's
// incarnation, which keeps it within a cache line.
type delivery struct {
	p   *process
	msg Message
	// incarnation is the member end's: the sender's of a request, the
	// addressee's of a response.
	incarnation   int
	thread        Thread
	toCoordinator bool
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

// ends returns the sender and addressee of a message between the
// coordinator and incarnation of p.
func ends(p *process, incarnation int, toCoordinator bool) (from, to Endpoint) {
	member := Endpoint{Process: p.name, Incarnation: incarnation}
	if toCoordinator {
		return member, Coordinator
	}
	return Coordinator, member
}

func (d *delivery) fire() {
	p, msg, thread, incarnation, toCoordinator := d.p, d.msg, d.thread, d.incarnation, d.toCoordinator
	w := p.w
	w.deliveries.put(d)
	if w.k.Now() < p.cutOffUntil {
		if w.traceOn() {
			from, to := ends(p, incarnation, toCoordinator)
			w.traceMessage(traceRecord{Event: "drop", Msg: msg.Kind(), Detail: "network partition"}, from, to)
		}
		return
	}
	if w.traceOn() {
		// Delivery time, so a reader sees each message's latency; the
		// body was traced with the send. A message to a process that
		// has since died is still delivered here and then ignored.
		from, to := ends(p, incarnation, toCoordinator)
		w.traceMessage(traceRecord{Event: "recv", Msg: msg.Kind()}, from, to)
	}
	if toCoordinator {
		out := w.effects()
		w.coord.Receive(w.coordEnv(), Endpoint{Process: p.name, Incarnation: incarnation}, msg, out)
		w.applyCoordinator(out, p)
		w.release(out)
		return
	}
	if !p.alive || p.incarnation != incarnation {
		return
	}
	w.stepClient(p, thread, clientInput{kind: inputReceive, msg: msg})
}

// schedulePoll arranges the application thread's next poll(). A running
// poll loop reaches poll() once it has processed its current batch, so the
// delay is drawn up to the time one batch takes.
func (w *World) schedulePoll(p *process) {
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
func (w *World) runCallbacks(p *process) {
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
		if cb.Commit && p.cfg.EnableAutoCommit {
			d += p.cfg.CommitLatency
		}
		d += p.cfg.RevokeCallback
	case CallbackAssigned:
		w.ledger.Assign(p.idx, cb.Partitions)
		w.resumeAutoCommit(p)
		d += p.cfg.AssignCallback
	case CallbackLost:
		w.ledger.Release(p.idx, cb.Partitions, false)
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

func (w *World) finishCallback(p *process, cb Callback, started time.Duration) {
	if cb.Kind == CallbackRevoked {
		w.ledger.Release(p.idx, cb.Partitions, true)
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
func (w *World) blockApp(p *process, change func()) {
	was := p.appRunnable()
	change()
	if was && !p.appRunnable() {
		p.appBlocked = w.k.Now()
	}
}

// drain delivers inputs that waited for a blocked thread, oldest first.
func (w *World) drain(p *process) {
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

// --- notes ---

func (w *World) clientNote(p *process, n *Note) {
	m := &p.metrics
	now := w.k.Now()
	switch n.Kind {
	case NoteRebalanceStart:
		if !m.inRebalance {
			m.inRebalance, m.rebalanceStart = true, now
		}
	case NoteRebalanceEnd:
		if n.Failed {
			m.failed++
		} else if m.inRebalance {
			m.inRebalance = false
			m.latencies = append(m.latencies, float64(now-m.rebalanceStart)/float64(time.Millisecond))
			m.lastRebalanceEnd, m.hasRebalanced = now, true
		}
	case NoteJoinFailure:
		if !p.joinFailed {
			p.joinFailed = true
			w.findings = append(w.findings, Finding{Kind: "join_failure", At: sec(now), Members: []string{p.name}, Detail: n.Detail})
		}
	}
	if w.traceOn() {
		w.emit(traceRecord{Event: string(n.Kind), Member: p.name, Detail: n.Detail})
	}
}

func (w *World) coordNote(n *Note) {
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
		}
	}
	if w.traceOn() {
		w.emit(traceRecord{Event: string(n.Kind), Member: n.MemberID, Detail: fmt.Sprintf("%s %s", n.Process, n.Detail)})
	}
}

// update recomputes p's derived flags: readiness for convergence, idleness,
// and its swim lane.
func (w *World) update(p *process) {
	lp := w.ledger.procs[p.idx]
	// The process's own flags are tested before the client is asked.
	ready := !p.alive || (lp.member > 0 && p.client != nil && !p.closing && len(p.callbacks) == 0 && !p.appBusy && p.client.Settled())
	if ready != p.ready {
		if ready {
			w.notReady--
		} else {
			w.notReady++
		}
		p.ready = ready
	}
	now := w.k.Now()
	rebalancing := p.client != nil && p.client.Rebalancing()
	owns := w.ledger.Owns(p.idx)
	idle := p.alive && !p.paused && owns == 0 && rebalancing
	if idle != p.idle {
		if idle {
			p.idleSince = now
		} else {
			p.idleTotal += w.ledger.overlap(p.idleSince, now)
		}
		p.idle = idle
	}
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
		if now > p.laneSince && w.opts.Timeline {
			p.lanes = append(p.lanes, MemberSegment{Member: p.name, State: p.lane, Start: sec(p.laneSince), End: sec(now)})
		}
		p.lane, p.laneSince = lane, now
	}
}

// --- process lifecycle ---

func (w *World) startProcess(p *process) {
	if p.alive {
		return
	}
	cfg, err := ResolveConfig(w.sc, w.opts.Protocol, p.spec, p.patches)
	if err == nil {
		var c Client
		c, err = w.models.NewClient(Endpoint{Process: p.name, Incarnation: p.incarnation + 1}, cfg)
		if err == nil {
			p.incarnation++
			p.cfg, p.client = cfg, c
		}
	}
	if err != nil {
		w.findings = append(w.findings, Finding{Kind: "join_failure", At: sec(w.k.Now()), Members: []string{p.name}, Detail: err.Error()})
		return
	}
	p.alive, p.paused, p.stalled, p.appBusy, p.closing, p.catchingUp = true, false, false, false, false, false
	p.startedAt, p.autoCommitIdle = w.k.Now(), false
	p.callbacks, p.appInbox, p.bgInbox, p.pollPending = nil, nil, nil, false
	w.ledger.procs[p.idx].rate = cfg.ProcessingRate
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
func (w *World) scheduleAutoCommit(p *process) {
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
		// commits nothing until it polls again.
		w.stepClient(p, AppThread, clientInput{fn: func(Client, ClientEnv, *Effects) { w.ledger.Commit(p.idx) }})
		w.scheduleAutoCommit(p)
	})
}

// resumeAutoCommit restarts the ticks of a member that had stopped them
// for owning nothing.
func (w *World) resumeAutoCommit(p *process) {
	if p.autoCommitIdle && w.ledger.Owns(p.idx) > 0 {
		p.autoCommitIdle = false
		w.scheduleAutoCommit(p)
	}
}

// stopProcess takes a process down. A crash loses what it processed since
// its last commit; a completed close has already revoked and committed.
func (w *World) stopProcess(p *process, clean bool) {
	if !p.alive {
		return
	}
	if clean {
		w.ledger.Release(p.idx, w.ledger.ownedBy(p.idx), true)
	} else {
		w.ledger.ReleaseAll(p.idx)
	}
	w.stopTimers(&p.timers)
	p.timers = timerSet{}
	w.k.Cancel(p.autoCommit)
	w.k.Cancel(p.closeDue)
	p.alive, p.client, p.closing, p.catchingUp = false, nil, false, false
	p.paused, p.stalled, p.appBusy, p.finishAfterPause = false, false, false, nil
	p.callbacks, p.appInbox, p.bgInbox = nil, nil, nil
	p.incarnation++ // nothing addressed to the old life is delivered
	w.syncProcess(p)
	w.refreshRequired()
	if w.traceOn() {
		w.emit(traceRecord{Event: "process_stop", Member: p.name, Detail: map[bool]string{true: "closed", false: "killed"}[clean]})
	}
	w.update(p)
}

// closeProcess starts a graceful close; the process stops when the client
// reports it closed, or after 30s (the default close timeout).
func (w *World) closeProcess(p *process) {
	if !p.alive || p.closing {
		return
	}
	p.closing = true
	inc := p.incarnation
	p.closeDue = w.k.At(w.k.Now()+30*time.Second, func() {
		if p.incarnation == inc {
			w.stopProcess(p, false)
		}
	})
	w.stepClient(p, AppThread, clientInput{fn: func(c Client, env ClientEnv, out *Effects) { c.Close(env, out) }})
}
