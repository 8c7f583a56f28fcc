package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// Replay measures a run that happened outside the simulator, a real broker
// and real consumers, with the same ledger and the same metric definitions
// as Run: the caller reports what each consumer's rebalance listener saw
// and what the coordinator said, in time order, and Finish returns a
// Result whose metrics mean exactly what a simulated run's do.
//
// The caller's duties, in order:
//  1. NewReplay with the scenario that was run for real.
//  2. Observe every observation in non-decreasing At (time since the run's
//     zero, the instant the scenario's first members were told to start).
//  3. Finish once, which closes every interval at the scenario's horizon.
//
// What the simulator knows and a real run only approximates is said at
// each ObservationKind.
type Replay struct {
	w *world
	// started tells, per process, whether it has started since it last
	// went down and not yet been handed an assignment: it owns nothing
	// because a rebalance is under way (member_idle_seconds).
	awaiting []bool
	// inCallback counts listener callbacks in progress per process.
	inCallback []int
	// stalled tells, per process, whether its application thread has
	// stopped processing (ObservedStall).
	stalled []bool
	// rebalancing tells, per process, whether it takes part in a
	// rebalance (ObservedRebalancing).
	rebalancing []bool
	maxGen      int
	series      *Series
	finished    bool
}

// ObservationKind names what a real run reports to Replay.
type ObservationKind string

const (
	// ObservedStart: the process subscribed (the consumer exists).
	ObservedStart ObservationKind = "start"
	// ObservedStop: the process is gone; Clean tells whether it closed the
	// consumer (revocations committed) or was killed.
	ObservedStop ObservationKind = "stop"
	// ObservedClose: the application began to close the consumer (a
	// graceful leave); the process owes the group its leave until it stops.
	ObservedClose ObservationKind = "close"
	// ObservedPause and ObservedResume: SIGSTOP and SIGCONT of the process.
	ObservedPause  ObservationKind = "pause"
	ObservedResume ObservationKind = "resume"
	// ObservedStall and ObservedUnstall: the application thread stopped
	// and resumed processing records while the process stayed up (a slow
	// call, a lock), so its heartbeats went on.
	ObservedStall   ObservationKind = "stall"
	ObservedUnstall ObservationKind = "unstall"
	// ObservedCommitted: a commit of everything the member had processed
	// succeeded. A member outside the group cannot commit; its commit is
	// ignored, as the broker would reject it.
	ObservedCommitted ObservationKind = "committed"
	// ObservedAssigned: onPartitionsAssigned was entered.
	ObservedAssigned ObservationKind = "assigned"
	// ObservedRevoking and ObservedRevoked: onPartitionsRevoked was
	// entered and returned.
	ObservedRevoking ObservationKind = "revoking"
	ObservedRevoked  ObservationKind = "revoked"
	// ObservedLost: onPartitionsLost was entered.
	ObservedLost ObservationKind = "lost"
	// ObservedCallbackDone: an assigned or lost callback returned.
	ObservedCallbackDone ObservationKind = "callback_done"
	// ObservedMembers: the coordinator lists Members member ids for the
	// process (from describing the group, so up to one poll late).
	ObservedMembers ObservationKind = "members"
	// ObservedCoordinator: the coordinator's group state is Stable or not.
	ObservedCoordinator ObservationKind = "coordinator"
	// ObservedRebalancing: the member is (Rebalancing) or is no longer
	// taking part in a rebalance of its own: between a classic member's
	// revocation and the assignment that ends its rejoin, say, which the
	// coordinator's Stable does not show (a cooperative member revokes
	// after the first rebalance has gone Stable, then rejoins for a
	// second). A rebalancing member is not ready, so the group has not
	// converged.
	ObservedRebalancing ObservationKind = "rebalancing"
	// ObservedGeneration: a generation (classic) or group epoch (consumer
	// protocol) was seen; each increase within the measurement window
	// counts as rebalances, as the coordinator's own count does.
	ObservedGeneration ObservationKind = "generation"
)

// Observation is one thing a real run saw.
type Observation struct {
	At         time.Duration
	Kind       ObservationKind
	Member     string
	Partitions []kafka.TopicPartition
	Clean      bool
	Members    int
	Stable     bool
	Generation int
	// Rebalancing is ObservedRebalancing's.
	Rebalancing bool
}

// NewReplay prepares to measure a real run of sc under protocol.
func NewReplay(sc *Scenario, protocol string) (*Replay, error) {
	if err := checkRunnable(sc); err != nil {
		return nil, err
	}
	w := &world{k: newKernel(), sc: sc, opts: RunOptions{Protocol: protocol}, streams: newStreams(sc.Seed),
		byName: map[string]int{}, loads: map[string]*topicLoad{}}
	w.ledger = newLedger(w.k.Now, windowStart(sc), false)
	r := &Replay{w: w}
	for i, m := range sc.Members {
		cfg, err := ResolveConfig(sc, protocol, m, nil)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		// A process that is down is ready (it owes the group nothing).
		w.procs = append(w.procs, &process{w: w, idx: i, name: m.ID, spec: m, cfg: cfg, ready: true, lane: "down", pollEventAt: -1})
		w.byName[m.ID] = i
		w.ledger.addProcess(m.ID, cfg.ProcessingRate)
		if m.Start > 0 {
			w.disturb(disturbance{kind: string(EventStart), members: []string{m.ID}, start: m.Start, end: m.Start, label: "start " + m.ID})
		}
	}
	r.awaiting = make([]bool, len(w.procs))
	r.inCallback = make([]int, len(w.procs))
	r.stalled = make([]bool, len(w.procs))
	r.rebalancing = make([]bool, len(w.procs))
	// Partitions produce at their own rates (rates:, skew:, hot:); a real
	// producer's load: steps are not replayed, so the rates stay constant.
	for _, t := range sc.Topics {
		w.loads[t.Name] = newTopicLoad(t, w.streams)
		for p := int32(0); p < t.Partitions; p++ {
			w.ledger.addPartition(kafka.TopicPartition{Topic: t.Name, Partition: p}, w.loads[t.Name].rate(p), nil, true)
		}
	}
	// The disturbances as Run's schedule records them.
	for _, ev := range sc.Events {
		if ev.Kind == EventRollingRestart {
			for i, name := range ev.Members {
				at := ev.At + time.Duration(i)*ev.Interval
				w.disturb(disturbance{kind: string(EventRestart), members: []string{name}, start: at, end: at + ev.For, label: "rolling restart " + name})
			}
			continue
		}
		end := ev.At + ev.For
		if ev.Kind == EventStart || ev.Kind == EventLeave || ev.Kind == EventCrash {
			end = ev.At
		}
		w.disturb(disturbance{kind: string(ev.Kind), members: ev.Members, start: ev.At, end: end, label: fmt.Sprintf("%s %s", ev.Kind, strings.Join(ev.Members, ","))})
	}
	w.converged = w.ledger.Converged()
	w.flips = append(w.flips, flip{0, w.converged})
	w.k.AfterEach(w.checkConvergence)
	step := max(sc.Duration/600, 100*time.Millisecond)
	r.series = &Series{Step: sec(step)}
	var sample func()
	sample = func() {
		w.sample(r.series)
		if next := w.k.Now() + step; next <= sc.Duration {
			w.k.At(next, sample)
		}
	}
	w.k.At(0, sample)
	return r, nil
}

// Observe applies one observation. Observations past the horizon are
// ignored; one earlier than the previous one is an error.
func (r *Replay) Observe(o Observation) error {
	w := r.w
	if r.finished {
		return fmt.Errorf("replay: observation after Finish")
	}
	if o.At < w.k.Now() {
		return fmt.Errorf("replay: observation at %s is before %s", o.At, w.k.Now())
	}
	if o.At > w.sc.Duration {
		return nil
	}
	w.k.RunUntil(o.At)
	if o.Kind == ObservedCoordinator {
		w.coordStable = o.Stable
		w.checkConvergence()
		return nil
	}
	if o.Kind == ObservedGeneration {
		if o.Generation > r.maxGen {
			if o.At >= w.ledger.windowStart && r.maxGen > 0 {
				w.rebalances += o.Generation - r.maxGen
			}
			r.maxGen = o.Generation
		}
		return nil
	}
	i, ok := w.byName[o.Member]
	if !ok {
		return fmt.Errorf("replay: observation of %q, who is no member of scenario %s", o.Member, w.sc.Name)
	}
	p, l := w.procs[i], w.ledger
	switch o.Kind {
	case ObservedStart:
		p.alive, p.paused, p.closing, r.awaiting[i], r.stalled[i], r.rebalancing[i] = true, false, false, true, false, false
		l.SetProcess(i, true, false, false)
	case ObservedClose:
		p.closing = true
	case ObservedStop:
		if o.Clean {
			l.Release(i, l.ownedBy(i), true, true)
		} else {
			l.ReleaseAll(i)
		}
		p.alive, p.paused, p.closing, r.awaiting[i], r.inCallback[i], r.stalled[i], r.rebalancing[i] = false, false, false, false, 0, false, false
		l.SetProcess(i, false, false, false)
	case ObservedPause, ObservedResume:
		p.paused = o.Kind == ObservedPause
		l.SetProcess(i, p.alive, p.paused, r.stalled[i])
	case ObservedStall, ObservedUnstall:
		r.stalled[i] = o.Kind == ObservedStall
		l.SetProcess(i, p.alive, p.paused, r.stalled[i])
	case ObservedCommitted:
		l.Commit(i)
	case ObservedRebalancing:
		r.rebalancing[i] = o.Rebalancing
	case ObservedAssigned:
		r.inCallback[i]++
		l.Assign(i, o.Partitions)
		r.awaiting[i] = false
	case ObservedRevoking:
		r.inCallback[i]++
		l.StartRevoke(i, o.Partitions)
	case ObservedRevoked:
		r.inCallback[i] = max(r.inCallback[i]-1, 0)
		l.Release(i, o.Partitions, true, true)
		if l.Owns(i) == 0 {
			r.awaiting[i] = true
		}
	case ObservedLost:
		r.inCallback[i]++
		l.Release(i, o.Partitions, false, false)
		r.awaiting[i] = true
	case ObservedCallbackDone:
		r.inCallback[i] = max(r.inCallback[i]-1, 0)
	case ObservedMembers:
		if d := o.Members - l.procs[i].member; d != 0 {
			l.SetMember(i, d)
		}
	default:
		return fmt.Errorf("replay: unknown observation %q", o.Kind)
	}
	r.update(p)
	w.checkConvergence()
	return nil
}

// update is World.update for a real process: ready when it is a member,
// runs no callback, takes part in no rebalance and is not closing; idle while it owns nothing
// because it waits for a rebalance to hand it partitions.
func (r *Replay) update(p *process) {
	w, i := r.w, p.idx
	ready := !p.alive || (w.ledger.procs[i].member > 0 && r.inCallback[i] == 0 && !r.rebalancing[i] && !p.closing)
	w.setDerived(p, ready, p.alive && !p.paused && w.ledger.Owns(i) == 0 && r.awaiting[i])
}

// Finish closes the run at the scenario's horizon and returns its result.
// Its duplicate_records are the ledger's, as in a simulated run: what an
// owner had processed since its last ObservedCommitted when it let go of
// a partition without a commit. A real run knows better, from the
// offsets its members processed, and should put that count in instead.
func (r *Replay) Finish() *Result {
	w := r.w
	w.k.RunUntil(w.sc.Duration)
	r.finished = true
	return w.result(r.series)
}
