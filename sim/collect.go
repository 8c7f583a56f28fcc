package sim

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"time"
)

// sample records one point of the chart series.
func (w *world) sample(s *Series) {
	now := w.k.Now()
	s.Times = append(s.Times, sec(now))
	s.Processing = append(s.Processing, w.ledger.ProcessingFraction())
	s.Lag = append(s.Lag, w.ledger.totalLag(now))
	s.Moved = append(s.Moved, float64(w.ledger.moved))
	s.Revocations = append(s.Revocations, float64(w.ledger.revocations))
}

// convergedAt returns the first instant at or after t when the group was
// converged, and whether it ever was.
func (w *world) convergedAt(t time.Duration) (time.Duration, bool) {
	i := sort.Search(len(w.flips), func(i int) bool { return w.flips[i].at > t }) - 1
	if i >= 0 && w.flips[i].ok {
		return t, true
	}
	for j := i + 1; j < len(w.flips); j++ {
		if w.flips[j].ok {
			return w.flips[j].at, true
		}
	}
	return 0, false
}

// unstableBetween reports whether the group was unconverged at any instant
// of [a, b].
func (w *world) unstableBetween(a, b time.Duration) bool {
	i := sort.Search(len(w.flips), func(i int) bool { return w.flips[i].at > a }) - 1
	if i >= 0 && !w.flips[i].ok {
		return true
	}
	for j := i + 1; j < len(w.flips) && w.flips[j].at <= b; j++ {
		if !w.flips[j].ok {
			return true
		}
	}
	return false
}

func (w *world) result(series *Series) *Result {
	l := w.ledger
	horizon := w.sc.Duration
	l.finish()
	for _, p := range w.procs {
		if p.idle {
			p.idleTotal += l.overlap(p.idleSince, horizon)
		}
		if horizon > p.laneSince && w.opts.Timeline {
			p.lanes = append(p.lanes, MemberSegment{Member: p.name, State: p.lane, Start: sec(p.laneSince), End: sec(horizon)})
		}
	}
	r := &Result{
		Scenario: w.sc.Name, Protocol: w.opts.Protocol, Seed: w.streams.seed,
		WindowStart: sec(l.windowStart), WindowEnd: sec(horizon),
		Events: w.k.Executed(), Series: *series,
		Disturbances: w.disturbances,
	}
	m := &r.Metrics
	m.Rebalances = w.rebalances
	l.partitionMetrics(m)
	for _, p := range w.procs {
		m.MemberIdleSeconds += p.idleTotal
	}
	m.LagRecoverySeconds = lagRecovery(series, sec(l.windowStart))
	m.Converged = true
	for _, d := range w.disturbances {
		start := time.Duration(d.Start * float64(time.Second))
		end := time.Duration(d.End * float64(time.Second))
		c := Convergence{Disturbance: d.Label, At: d.Start, Converged: true}
		at, ok := w.convergedAt(end)
		switch {
		case !ok:
			c.Converged, c.Seconds = false, sec(horizon-start)
		case w.unstableBetween(start, at):
			c.Seconds = sec(at - start)
		}
		r.Convergence = append(r.Convergence, c)
		m.ConvergenceSeconds = max(m.ConvergenceSeconds, c.Seconds)
		m.Converged = m.Converged && c.Converged
	}
	if !w.converged {
		m.Converged = false
		r.Findings = append(r.Findings, w.notConvergedFinding())
	}
	for _, p := range w.procs {
		r.Members = append(r.Members, MemberMetrics{Member: p.name, Metrics: p.metrics.named(horizon), Utilisation: l.utilisation(p.idx)})
	}
	episodes := w.episodeLatency()
	for i := range r.Convergence {
		r.Convergence[i].Latency = episodes[r.Convergence[i].At]
	}
	r.LatencyHistogram = latencyHistogram(l.pieces.all(), sec(l.windowStart), sec(horizon))
	r.Series.Latency = latencyOverTime(l.pieces.all(), sec(l.windowStart), sec(horizon))
	r.WorstPartitions, r.HotPartitions = l.partitionReport()
	r.DuplicatesByRebalance = w.duplicatesByRebalance()
	r.Findings = append(r.Findings, l.findings...)
	r.Findings = append(r.Findings, w.findings...)
	if m.ZombieProcessingSeconds > 0 {
		r.Findings = append(r.Findings, w.zombieFinding())
	}
	slices.SortStableFunc(r.Findings, func(a, b Finding) int { return cmp.Compare(a.At, b.At) })
	// Each partition's and each member's history is kept in time order;
	// the result lists partitions by name (numerically) and members in
	// scenario order.
	r.Timeline = l.history()
	n := 0
	for _, p := range w.procs {
		n += len(p.lanes)
	}
	r.MemberTimeline = make([]MemberSegment, 0, n)
	for _, p := range w.procs {
		r.MemberTimeline = append(r.MemberTimeline, p.lanes...)
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	return r
}

// notConvergedFinding names the members and partitions still pending at
// the horizon.
func (w *world) notConvergedFinding() Finding {
	f := Finding{Kind: "not_converged", At: sec(w.sc.Duration)}
	for _, p := range w.procs {
		if !p.ready {
			f.Members = append(f.Members, p.name)
		}
	}
	bad := w.ledger.BadPartitions()
	f.Partitions = bad
	if len(bad) > 20 {
		f.Partitions = bad[:20]
	}
	state := "stable"
	if !w.coord.Stable() {
		state = w.coord.State()
	}
	f.Detail = fmt.Sprintf("the group was not stable at the horizon: %d members pending, %d partitions without exactly one owner, group state %s", len(f.Members), len(bad), state)
	return f
}

func (w *world) zombieFinding() Finding {
	l := w.ledger
	f := Finding{Kind: "zombie_processing", At: sec(l.firstZombie), Members: l.zombieMembers,
		Detail: "a member the coordinator had fenced or removed went on processing partitions it believed it owned"}
	for _, p := range l.parts {
		if p.zombieSec > 0 && len(f.Partitions) < 20 {
			f.Partitions = append(f.Partitions, p.name)
		}
	}
	return f
}

// lagRecovery is the time from the window start until the total lag is back
// to its level at the window start (within 1% of the peak, or one record)
// for good.
func lagRecovery(s *Series, start float64) float64 {
	base, peak := -1.0, 0.0
	for i, t := range s.Times {
		if t >= start && base < 0 {
			base = s.Lag[i]
		}
		if t >= start {
			peak = max(peak, s.Lag[i])
		}
	}
	if base < 0 {
		return 0
	}
	tol := max(1, 0.01*peak)
	last := start
	for i, t := range s.Times {
		if t >= start && s.Lag[i] > base+tol {
			last = t + s.Step
		}
	}
	if len(s.Times) > 0 {
		last = min(last, s.Times[len(s.Times)-1])
	}
	return max(0, last-start)
}

// named renders the client metrics under Kafka's names, sorted by name.
func (m *clientMetrics) named(horizon time.Duration) []NamedMetric {
	hours := horizon.Hours()
	avg := func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	maxOf := func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		return slices.Max(xs)
	}
	total := 0.0
	for _, x := range m.latencies {
		total += x
	}
	lastAgo := -1.0
	if m.hasRebalanced {
		lastAgo = (horizon - m.lastRebalanceEnd).Seconds()
	}
	out := []NamedMetric{
		{"failed-rebalance-rate-per-hour", float64(m.failed) / hours},
		{"failed-rebalance-total", float64(m.failed)},
		{"last-rebalance-seconds-ago", lastAgo},
		{"partition-assigned-latency-avg", avg(m.callbacks[CallbackAssigned])},
		{"partition-assigned-latency-max", maxOf(m.callbacks[CallbackAssigned])},
		{"partition-lost-latency-avg", avg(m.callbacks[CallbackLost])},
		{"partition-lost-latency-max", maxOf(m.callbacks[CallbackLost])},
		{"partition-revoked-latency-avg", avg(m.callbacks[CallbackRevoked])},
		{"partition-revoked-latency-max", maxOf(m.callbacks[CallbackRevoked])},
		{"rebalance-latency-avg", avg(m.latencies)},
		{"rebalance-latency-max", maxOf(m.latencies)},
		{"rebalance-latency-total", total},
		{"rebalance-rate-per-hour", float64(len(m.latencies)) / hours},
		{"rebalance-total", float64(len(m.latencies))},
	}
	return out
}

// episodeLatency computes the latency of each disturbance's episode,
// keyed by its start: the records processed from the disturbance to the
// next one that starts later (or the horizon). Disturbances at one
// instant share their episode.
func (w *world) episodeLatency() map[float64]LatencyStats {
	bounds := make([]float64, 0, len(w.disturbances)+1)
	for _, d := range w.disturbances {
		bounds = append(bounds, d.Start)
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	out := map[float64]LatencyStats{}
	if len(bounds) == 0 {
		return out
	}
	bounds = append(bounds, max(sec(w.sc.Duration), bounds[len(bounds)-1]))
	for i, st := range latencyWindows(w.ledger.pieces.all(), bounds) {
		out[bounds[i]] = st
	}
	return out
}

// duplicatesByRebalance attributes each release that left duplicates to
// the first rebalance completing at or after it: the one that hands the
// partitions to an owner who processes those records again.
func (w *world) duplicatesByRebalance() []RebalanceDuplicates {
	out := []RebalanceDuplicates{}
	for _, d := range w.ledger.duplicateReleases {
		n := sort.Search(len(w.rebalanceTimes), func(i int) bool { return w.rebalanceTimes[i] >= d.at })
		rd := RebalanceDuplicates{At: sec(d.at)}
		if n < len(w.rebalanceTimes) {
			rd.Rebalance, rd.At = n+1, sec(w.rebalanceTimes[n])
		}
		for _, dist := range w.disturbances {
			if dist.Start <= sec(d.at) {
				rd.Disturbance = dist.Label
			}
		}
		if k := len(out) - 1; k >= 0 && out[k].Rebalance == rd.Rebalance && rd.Rebalance > 0 {
			out[k].Records += d.records
			continue
		}
		rd.Records = d.records
		out = append(out, rd)
	}
	return out
}
