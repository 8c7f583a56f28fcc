package sim

import (
	"fmt"
	"time"
)

// replicaCount follows the number of live consumer processes, the pods a
// workload pays for, over the measurement window.
type replicaCount struct {
	live  int
	since time.Duration
	// seconds is the member-seconds used inside the window; atStart the
	// count when the window opened, peak the highest count inside it.
	seconds       time.Duration
	atStart, peak int
}

// change records a process starting (+1) or stopping (-1).
func (w *world) replicasChanged(delta int) {
	r, now := &w.replicas, w.k.Now()
	r.seconds += time.Duration(r.live) * w.ledger.overlap(r.since, now)
	r.live += delta
	r.since = now
	if now < w.ledger.windowStart {
		r.atStart = r.live
	} else {
		r.peak = max(r.peak, r.live)
	}
}

// opsMetrics fills the metrics of deployments and autoscaling.
func (w *world) opsMetrics(m *Metrics, r *Result) {
	rc := &w.replicas
	horizon := w.sc.Duration
	rc.seconds += time.Duration(rc.live) * w.ledger.overlap(rc.since, horizon)
	rc.since = horizon
	m.MemberSeconds = sec(rc.seconds)
	m.ReplicasMax = max(rc.peak, rc.atStart)
	if window := horizon - w.ledger.windowStart; window > 0 {
		m.ReplicasMean = float64(rc.seconds) / float64(window)
		m.RebalancesPerHour = float64(m.Rebalances) * float64(time.Hour) / float64(window)
	}
	if a := w.scaler; a != nil {
		m.ScaleEvents, m.Oscillation = a.scaleEvents, a.oscillation
		r.Autoscaler = &AutoscalerResult{Decisions: a.history}
		if r.Autoscaler.Decisions == nil {
			r.Autoscaler.Decisions = []ScaleDecision{}
		}
	}
}

// checkOperations rejects what the pod models cannot run: a rollout with
// no description, an autoscaler without pods to copy, or one whose loop
// would not advance in time. The scenario loader says more, and where.
func checkOperations(sc *Scenario) error {
	for _, ev := range sc.Events {
		if ev.Kind == EventRollout && ev.Rollout == nil {
			return fmt.Errorf("scenario %s: the rollout at %s has no Rollout", sc.Name, ev.At)
		}
	}
	a := sc.Autoscaler
	switch {
	case a == nil:
		return nil
	case len(a.Members) == 0:
		return fmt.Errorf("scenario %s: the autoscaler scales no members", sc.Name)
	case a.PollingInterval <= 0:
		return fmt.Errorf("scenario %s: the autoscaler's polling interval must be positive", sc.Name)
	case a.MinReplicas < 1 || a.MaxReplicas < a.MinReplicas:
		return fmt.Errorf("scenario %s: the autoscaler needs 1 <= min_replicas <= max_replicas, found %d and %d", sc.Name, a.MinReplicas, a.MaxReplicas)
	}
	known := make(map[string]bool, len(sc.Members))
	for _, m := range sc.Members {
		known[m.ID] = true
	}
	for _, id := range a.Members {
		if !known[id] {
			return fmt.Errorf("scenario %s: the autoscaler names unknown member %s", sc.Name, id)
		}
	}
	return nil
}
