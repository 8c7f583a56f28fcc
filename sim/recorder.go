package sim

import (
	"fmt"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// Recorder feeds the ownership ledger from outside the simulator: events
// recorded from real consumers (what their rebalance listeners saw, when
// their processes ran, who the coordinator counted as a member) go in, and
// the same metrics a simulated run reports come out, computed by the same
// code. It is how a run against a real broker is measured like a
// simulated one.
//
// The caller's duties, in order:
//
//  1. NewRecorder with the topics and the start of the measurement window.
//  2. AddMember for every consumer process, before its first event.
//  3. Feed each recorded event in time order (times never go backwards;
//     events at one instant apply in call order): Started, Joined,
//     Assigned, Revoking, Revoked, Lost, Committed, Paused, Stalled, Left,
//     Closed, Crashed, Rebalanced.
//  4. Finish at the horizon, once; the Recorder is spent afterwards.
//
// A process processes its partitions only while it has Started and is
// neither Paused nor Stalled; it counts for safety (double_ownership) only
// while it is also a member, between Joined and Left. Records are counted
// from the topics' production rates and the members' processing rates,
// exactly as in the simulator, not from offsets.
type Recorder struct {
	now    time.Duration
	l      *ledger
	byName map[string]int
	step   time.Duration
	series Series
	// nextSample is the next instant the total lag is sampled at.
	nextSample time.Duration
	rebalances int
	finished   bool
}

// NewRecorder starts a ledger at time zero for the given topics, measuring
// from windowStart. sampleStep is the interval at which the total lag is
// sampled for lag_recovery_seconds, as RunOptions.SampleStep; 0 means
// 100ms.
func NewRecorder(topics []TopicSpec, windowStart, sampleStep time.Duration) *Recorder {
	if sampleStep <= 0 {
		sampleStep = 100 * time.Millisecond
	}
	r := &Recorder{byName: map[string]int{}, step: sampleStep, series: Series{Step: sec(sampleStep)}}
	r.l = newLedger(func() time.Duration { return r.now }, windowStart, false)
	for _, t := range topics {
		for p := int32(0); p < t.Partitions; p++ {
			r.l.addPartition(kafka.TopicPartition{Topic: t.Name, Partition: p}, t.Rate, true)
		}
	}
	return r
}

// AddMember registers a consumer process that processes records at rate
// records per second, shared among the partitions it processes.
func (r *Recorder) AddMember(name string, rate float64) error {
	if _, ok := r.byName[name]; ok {
		return fmt.Errorf("recorder: member %q added twice", name)
	}
	r.byName[name] = r.l.addProcess(name, rate)
	return nil
}

// at moves the clock to t, sampling the lag on the way, and returns the
// member's ledger index.
func (r *Recorder) at(t time.Duration, member string) (int, error) {
	if r.finished {
		return 0, fmt.Errorf("recorder: event at %s after Finish", t)
	}
	if t < r.now {
		return 0, fmt.Errorf("recorder: event at %s is before the previous one at %s", t, r.now)
	}
	proc, ok := r.byName[member]
	if !ok && member != "" {
		return 0, fmt.Errorf("recorder: event at %s names member %q, which was never added", t, member)
	}
	for r.nextSample <= t {
		r.now = r.nextSample
		r.series.Times = append(r.series.Times, sec(r.now))
		r.series.Lag = append(r.series.Lag, r.l.totalLag(r.now))
		r.nextSample += r.step
	}
	r.now = t
	return proc, nil
}

// setProcess changes one of the member's physical flags.
func (r *Recorder) setProcess(t time.Duration, member string, change func(pr *procLedger)) error {
	proc, err := r.at(t, member)
	if err != nil {
		return err
	}
	pr := *r.l.procs[proc]
	change(&pr)
	r.l.SetProcess(proc, pr.alive, pr.paused, pr.stalled)
	return nil
}

// Started records that the member's process came up (or back up).
func (r *Recorder) Started(t time.Duration, member string) error {
	return r.setProcess(t, member, func(pr *procLedger) { pr.alive, pr.paused, pr.stalled = true, false, false })
}

// Paused records that the whole process froze (on) or thawed (!on), as
// under a stop-the-world garbage collection or SIGSTOP.
func (r *Recorder) Paused(t time.Duration, member string, on bool) error {
	return r.setProcess(t, member, func(pr *procLedger) { pr.paused = on })
}

// Stalled records that the application thread stopped (on) or resumed
// (!on) processing records while the process stayed up.
func (r *Recorder) Stalled(t time.Duration, member string, on bool) error {
	return r.setProcess(t, member, func(pr *procLedger) { pr.stalled = on })
}

// Crashed records that the process died: what it owned is dropped without
// a commit, so its uncommitted records count as duplicates.
func (r *Recorder) Crashed(t time.Duration, member string) error {
	proc, err := r.at(t, member)
	if err != nil {
		return err
	}
	r.l.ReleaseAll(proc)
	r.l.SetProcess(proc, false, false, false)
	return nil
}

// Closed records a completed graceful close: what it still owned was
// revoked and committed.
func (r *Recorder) Closed(t time.Duration, member string) error {
	proc, err := r.at(t, member)
	if err != nil {
		return err
	}
	r.l.Release(proc, r.l.ownedBy(proc), true, true)
	r.l.SetProcess(proc, false, false, false)
	return nil
}

// Joined records that the coordinator counts the member in the group. A
// process may hold more than one member id at once (a static member's
// replacement joins before the old id is removed): each Joined is matched
// by one Left.
func (r *Recorder) Joined(t time.Duration, member string) error {
	return r.membership(t, member, +1)
}

// Left records that the coordinator no longer counts the member: it left,
// or was fenced or removed. A process that goes on processing after Left
// is a zombie.
func (r *Recorder) Left(t time.Duration, member string) error {
	return r.membership(t, member, -1)
}

func (r *Recorder) membership(t time.Duration, member string, delta int) error {
	proc, err := r.at(t, member)
	if err != nil {
		return err
	}
	if r.l.procs[proc].member+delta < 0 {
		return fmt.Errorf("recorder: at %s member %q left the group, which it had not joined", t, member)
	}
	r.l.SetMember(proc, delta)
	return nil
}

// Assigned records onPartitionsAssigned: the member starts processing tps.
func (r *Recorder) Assigned(t time.Duration, member string, tps []kafka.TopicPartition) error {
	proc, err := r.at(t, member)
	if err == nil {
		r.l.Assign(proc, tps)
	}
	return err
}

// Revoking records the start of onPartitionsRevoked: the member stops
// processing tps but still holds them.
func (r *Recorder) Revoking(t time.Duration, member string, tps []kafka.TopicPartition) error {
	proc, err := r.at(t, member)
	if err == nil {
		r.l.StartRevoke(proc, tps)
	}
	return err
}

// Revoked records the end of onPartitionsRevoked: the member committed and
// let go of tps. A member that is no longer in the group cannot commit, so
// its uncommitted records count as duplicates.
func (r *Recorder) Revoked(t time.Duration, member string, tps []kafka.TopicPartition) error {
	proc, err := r.at(t, member)
	if err == nil {
		r.l.Release(proc, tps, true, true)
	}
	return err
}

// Lost records onPartitionsLost: the member let go of tps without a
// commit.
func (r *Recorder) Lost(t time.Duration, member string, tps []kafka.TopicPartition) error {
	proc, err := r.at(t, member)
	if err == nil {
		r.l.Release(proc, tps, false, false)
	}
	return err
}

// Committed records a successful commit of everything the member has
// processed; a member outside the group cannot commit, and its commit is
// ignored as the broker would reject it.
func (r *Recorder) Committed(t time.Duration, member string) error {
	proc, err := r.at(t, member)
	if err == nil {
		r.l.Commit(proc)
	}
	return err
}

// Rebalanced counts one rebalance (classic: a generation completed;
// consumer protocol: a group epoch bump) if it is inside the window.
func (r *Recorder) Rebalanced(t time.Duration) error {
	if _, err := r.at(t, ""); err != nil {
		return err
	}
	if t >= r.l.windowStart {
		r.rebalances++
	}
	return nil
}

// Finish closes the ledger at the horizon and returns the metrics and the
// double_ownership findings. Converged says whether, at the horizon, every
// partition has exactly one owner and that owner is a current member.
// Metrics the ledger cannot see are left zero: member_idle_seconds and
// convergence_seconds need the clients' and the coordinator's rebalance
// state, which only the simulator has.
func (r *Recorder) Finish(horizon time.Duration) (Metrics, []Finding, error) {
	if _, err := r.at(horizon, ""); err != nil {
		return Metrics{}, nil, err
	}
	r.finished = true
	r.l.finish()
	m := Metrics{Rebalances: r.rebalances, Converged: r.l.Converged()}
	r.l.partitionMetrics(&m)
	m.LagRecoverySeconds = sec(r.l.lagRecovery())
	return m, r.l.findings, nil
}
