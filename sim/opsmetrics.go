package sim

import "time"

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
