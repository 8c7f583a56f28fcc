package fidelity

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// Line is one JSON line of a process's log, or one action of the runner
// (a signal, an exit), stamped with the wall clock in microseconds.
type Line struct {
	T     int64  `json:"t"`
	Ev    string `json:"ev"`
	Phase string `json:"phase,omitempty"`
	Gen   int    `json:"gen,omitempty"`
	// MemberID is the member's id in the group, as the client reports it
	// (groupMetadata().memberId()): the broker's under the classic
	// protocol, the client's own under the consumer protocol.
	MemberID string `json:"member_id,omitempty"`
	// Parts are partitions as topic-partition, in the scenario's names.
	Parts []string `json:"parts,omitempty"`
	Part  string   `json:"part,omitempty"`
	From  int64    `json:"from,omitempty"`
	To    int64    `json:"to,omitempty"`
	// State, Epoch and Members are the coordinator's view (the producer's log).
	State   string   `json:"state,omitempty"`
	Epoch   int      `json:"epoch,omitempty"`
	Members []string `json:"members,omitempty"`
	// Member and Incarnation say which process wrote the line ("" for the
	// producer's); the runner fills them in.
	Member      string `json:"member,omitempty"`
	Incarnation int    `json:"incarnation,omitempty"`
}

// Recording is one real run: every line, and the wall-clock instant (µs)
// that is time zero of the scenario.
type Recording struct {
	Scenario string `json:"scenario"`
	Protocol string `json:"protocol"`
	Client   string `json:"client"`
	Rep      int    `json:"rep"`
	T0       int64  `json:"t0_us"`
	Lines    []Line `json:"lines"`
}

// RunOptions say how one real run is made.
type RunOptions struct {
	Protocol string
	Client   Client
	Java     *Java // for the producer
	Broker   *Broker
	// Rep and Reps place this run's trigger phase: the initial members
	// start Rep/Reps of a heartbeat interval before the disturbances'
	// time line, so that repetitions sample the heartbeat phase evenly.
	Rep, Reps int
	// Name makes the run's topic and group names unique on the broker.
	Name string
	Dir  string
	// Barrier, when set, is called once every process is up and waits
	// for the runs started beside this one (--parallel), so that no
	// run's clock starts while another's JVMs are starting.
	Barrier func()
}

// incarnation is one process life of a member.
type incarnation struct {
	member string
	n      int
	// goAt is when it is told to start, on the scenario's clock.
	goAt time.Duration
	cfg  sim.ConsumerConfig
	proc *child
	in   io.WriteCloser
}

// action is one thing the runner does at a time of the scenario.
type action struct {
	at  time.Duration
	seq int
	do  func()
}

// RunReal runs sc under opts.Protocol on the real broker and returns what
// every process logged. It returns after the scenario's horizon, with
// every process it started gone.
func RunReal(ctx context.Context, sup *Supervisor, sc *sim.Scenario, opts RunOptions) (*Recording, error) {
	rec := &Recording{Scenario: sc.Name, Protocol: opts.Protocol, Client: opts.Client.Name(), Rep: opts.Rep}
	var mu sync.Mutex
	add := func(l Line) {
		mu.Lock()
		rec.Lines = append(rec.Lines, l)
		mu.Unlock()
	}
	// The runner's own lines (a start signal, a process signal) carry
	// the instant the scenario gives them, not the few milliseconds later
	// at which the runner got to them: the scenario's clock is what
	// convergence and the measurement window count from.
	var scheduled int64
	stamp := func() int64 { return scheduled }
	prefix := opts.Name + "-"
	group := opts.Name

	// The producer, which also describes the group every 100 ms.
	var topicArgs, realTopics []string
	for _, t := range sc.Topics {
		topicArgs = append(topicArgs, fmt.Sprintf("%s%s:%d:%g", prefix, t.Name, t.Partitions, t.Rate))
		realTopics = append(realTopics, prefix+t.Name)
	}
	pcmd := opts.Java.command("128m", "rebalsim.fidelity.Producer", append([]string{opts.Broker.Bootstrap, group}, topicArgs...)...)
	producer, err := startLogged(sup, pcmd, "", 0, add, filepath.Join(opts.Dir, "producer.stderr"))
	if err != nil {
		return nil, fmt.Errorf("starting the producer: %w", err)
	}
	defer func() {
		producer.in.Close()
		producer.proc.signal(syscall.SIGKILL)
		producer.proc.wait()
	}()

	waitFor := func(ev string, want int) error {
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			mu.Lock()
			n := 0
			for _, l := range rec.Lines {
				if l.Ev == ev {
					n++
				}
			}
			mu.Unlock()
			if n >= want {
				return nil
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			time.Sleep(50 * time.Millisecond)
		}
		return fmt.Errorf("%d processes did not report %q within 2 minutes (see the .stderr files in %s)", want, ev, opts.Dir)
	}
	if err := waitFor("ready", 1); err != nil {
		return nil, err
	}

	// Every incarnation of every member is known in advance: its first
	// start, and one more per restart. All their JVMs start now and wait.
	incs, acts, err := plan(sc, opts.Protocol)
	if err != nil {
		return nil, err
	}
	for _, inc := range incs {
		topics := realTopics
		if inc.cfg.Subscription != nil {
			topics = nil
			for _, t := range inc.cfg.Subscription {
				topics = append(topics, prefix+t)
			}
		}
		cmd, err := opts.Client.Command(Member{Bootstrap: opts.Broker.Bootstrap, Group: group, Topics: topics, Prefix: prefix, Config: inc.cfg})
		if err != nil {
			return nil, err
		}
		p, err := startLogged(sup, cmd, inc.member, inc.n, add, filepath.Join(opts.Dir, fmt.Sprintf("%s.%d.stderr", inc.member, inc.n)))
		if err != nil {
			return nil, fmt.Errorf("starting member %s: %w", inc.member, err)
		}
		inc.proc, inc.in = p.proc, p.in
	}
	defer func() {
		for _, inc := range incs {
			inc.in.Close()
			inc.proc.signal(syscall.SIGCONT)
			inc.proc.signal(syscall.SIGKILL)
		}
		for _, inc := range incs {
			inc.proc.wait()
		}
	}()
	if err := waitFor("waiting", len(incs)); err != nil {
		return nil, err
	}
	if opts.Barrier != nil {
		opts.Barrier()
	}

	phase := Phase(sc, opts.Protocol, opts.Rep, opts.Reps)
	begin := time.Now()
	rec.T0 = begin.Add(phase).UnixMicro()
	fmt.Fprintln(producer.in, "go")
	signal := func(inc *incarnation, sig syscall.Signal, name string) {
		if inc.proc.exited() {
			return
		}
		add(Line{T: stamp(), Ev: "signal", Phase: name, Member: inc.member, Incarnation: inc.n})
		inc.proc.signal(sig)
	}
	for _, inc := range incs {
		inc := inc
		at := inc.goAt
		if at == 0 {
			at = -phase
		}
		acts = append(acts, action{at: at, do: func() {
			add(Line{T: stamp(), Ev: "go", Member: inc.member, Incarnation: inc.n})
			fmt.Fprintln(inc.in, "go")
		}})
	}
	acts = append(acts, eventActions(sc, incs, signal)...)
	for i := range acts {
		acts[i].seq = i
	}
	sort.SliceStable(acts, func(i, j int) bool { return acts[i].at < acts[j].at })
	t0 := begin.Add(phase)
	for _, a := range acts {
		if a.at > sc.Duration {
			break
		}
		if err := sleepUntil(ctx, t0.Add(a.at)); err != nil {
			return nil, err
		}
		scheduled = t0.Add(a.at).UnixMicro()
		a.do()
	}
	if err := sleepUntil(ctx, t0.Add(sc.Duration)); err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	out := *rec
	out.Lines = slices.Clone(rec.Lines)
	if err := AddJoins(&out, filepath.Join(opts.Broker.dir, "broker.log"), opts.Name); err != nil {
		return nil, err
	}
	return &out, nil
}

// Phase is repetition rep of reps' trigger phase: how long before the
// disturbances' time line the initial members start, rep/reps of a
// heartbeat interval, so that repetitions sample the heartbeat phase
// evenly. Real runs and the simulator's runs use the same phases.
func Phase(sc *sim.Scenario, protocol string, rep, reps int) time.Duration {
	if reps <= 1 {
		return 0
	}
	return heartbeatOf(sc, protocol) * time.Duration(rep) / time.Duration(reps)
}

// Phased returns sc with its disturbances phase later than its initial
// members: every event and every member starting after time zero moves,
// and so does the horizon. The simulator's window starts at the first
// disturbance, so its metrics measure the same stretch as a real run
// whose initial members started phase early.
func Phased(sc *sim.Scenario, phase time.Duration) *sim.Scenario {
	out := *sc
	if phase == 0 {
		return &out
	}
	out.Duration += phase
	out.Members = slices.Clone(sc.Members)
	for i := range out.Members {
		if out.Members[i].Start > 0 {
			out.Members[i].Start += phase
		}
	}
	out.Events = slices.Clone(sc.Events)
	for i := range out.Events {
		out.Events[i].At += phase
	}
	return &out
}

// heartbeatOf is the heartbeat interval that sets the trigger phase.
func heartbeatOf(sc *sim.Scenario, protocol string) time.Duration {
	if protocol == sim.ProtocolNextgen {
		return sim.ResolveGroupConfig(sc.Group).HeartbeatInterval
	}
	if len(sc.Members) > 0 {
		if cfg, err := sim.ResolveConfig(sc, protocol, sc.Members[0], nil); err == nil {
			return cfg.HeartbeatInterval
		}
	}
	return 3 * time.Second
}

// plan lists every incarnation: each member's first start, and a new one
// per restart, with the `set:` patches applied so far.
func plan(sc *sim.Scenario, protocol string) ([]*incarnation, []action, error) {
	var incs []*incarnation
	patches := map[string][]sim.ConsumerSettings{}
	count := map[string]int{}
	byID := map[string]sim.MemberSpec{}
	newInc := func(id string, at time.Duration) error {
		m := byID[id]
		cfg, err := sim.ResolveConfig(sc, protocol, m, patches[id])
		if err != nil {
			return fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		count[id]++
		incs = append(incs, &incarnation{member: id, n: count[id], goAt: at, cfg: cfg})
		return nil
	}
	for _, m := range sc.Members {
		byID[m.ID] = m
	}
	for _, m := range sc.Members {
		if err := newInc(m.ID, m.Start); err != nil {
			return nil, nil, err
		}
	}
	// A start event brings back a member that a leave or a crash took
	// down; for one that runs, it does nothing (as in the simulator).
	down := map[string]bool{}
	for _, ev := range sc.Events {
		switch ev.Kind {
		case sim.EventLeave, sim.EventCrash:
			for _, id := range ev.Members {
				down[id] = true
			}
		case sim.EventStart:
			for _, id := range ev.Members {
				if !down[id] {
					continue
				}
				down[id] = false
				if err := newInc(id, ev.At); err != nil {
					return nil, nil, err
				}
			}
		case sim.EventRestart, sim.EventRollingRestart:
			for i, id := range ev.Members {
				at := ev.At
				if ev.Kind == sim.EventRollingRestart {
					at += time.Duration(i) * ev.Interval
				}
				if ev.Set != (sim.ConsumerSettings{}) {
					patches[id] = append(patches[id], ev.Set)
				}
				if err := newInc(id, at+ev.For); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return incs, nil, nil
}

// eventActions turns the scenario's disturbances into signals to the
// member's incarnation that is running at the time.
func eventActions(sc *sim.Scenario, incs []*incarnation, signal func(*incarnation, syscall.Signal, string)) []action {
	// running is the incarnation of id current at t: the last one told
	// to start at or before t.
	running := func(id string, t time.Duration) *incarnation {
		var cur *incarnation
		for _, inc := range incs {
			if inc.member == id && inc.goAt <= t {
				cur = inc
			}
		}
		return cur
	}
	var acts []action
	at := func(t time.Duration, fn func()) { acts = append(acts, action{at: t, do: fn}) }
	down := func(id string, t, d time.Duration, graceful bool) {
		inc := running(id, t)
		if inc == nil {
			return
		}
		if graceful {
			at(t, func() { signal(inc, syscall.SIGTERM, "term") })
		} else {
			at(t, func() { signal(inc, syscall.SIGKILL, "kill") })
		}
		// A close still under way when the new process is due is cut short.
		at(t+d, func() { signal(inc, syscall.SIGKILL, "kill") })
	}
	for _, ev := range sc.Events {
		for i, id := range ev.Members {
			switch ev.Kind {
			case sim.EventLeave:
				if inc := running(id, ev.At); inc != nil {
					at(ev.At, func() { signal(inc, syscall.SIGTERM, "term") })
				}
			case sim.EventCrash:
				if inc := running(id, ev.At); inc != nil {
					at(ev.At, func() { signal(inc, syscall.SIGKILL, "kill") })
				}
			case sim.EventPause:
				if inc := running(id, ev.At); inc != nil {
					at(ev.At, func() { signal(inc, syscall.SIGSTOP, "stop") })
					at(ev.At+ev.For, func() { signal(inc, syscall.SIGCONT, "cont") })
				}
			case sim.EventRestart:
				down(id, ev.At, ev.For, ev.Graceful)
			case sim.EventRollingRestart:
				down(id, ev.At+time.Duration(i)*ev.Interval, ev.For, ev.Graceful)
			}
		}
	}
	return acts
}

type logged struct {
	proc *child
	in   io.WriteCloser
}

// startLogged starts cmd under sup, sends its standard output's JSON
// lines to add (stamped with member and incarnation) and its standard
// error to the file errPath; when it exits, add gets an "exit" line.
func startLogged(sup *Supervisor, c *exec.Cmd, member string, n int, add func(Line), errPath string) (*logged, error) {
	in, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	ef, err := os.Create(errPath)
	if err != nil {
		return nil, err
	}
	c.Stderr = ef
	p, err := sup.start(c)
	if err != nil {
		ef.Close()
		return nil, err
	}
	go func() {
		s := bufio.NewScanner(out)
		s.Buffer(make([]byte, 1<<16), 1<<20)
		for s.Scan() {
			var l Line
			if json.Unmarshal(s.Bytes(), &l) != nil || !strings.HasPrefix(s.Text(), "{") {
				continue
			}
			l.Member, l.Incarnation = member, n
			add(l)
		}
		p.wait()
		ef.Close()
		add(Line{T: time.Now().UnixMicro(), Ev: "exit", Member: member, Incarnation: n})
	}()
	return &logged{proc: p, in: in}, nil
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
