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
	lag := w.ledger.totalLag(now)
	s.Lag = append(s.Lag, lag)
	// The highest lag since the previous sample: the peak between samples
	// is at a ledger change (observeLag), which the sample would miss.
	// Counted from the window's start, like peak_lag_records.
	if now >= w.ledger.windowStart {
		s.LagMax = append(s.LagMax, max(w.ledger.stepPeak, lag))
		w.ledger.stepPeak = lag
	} else {
		s.LagMax = append(s.LagMax, lag)
	}
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

// convergence judges one disturbance that started before the horizon: the
// time from its start until the group was stable again, counted only if it
// was unstable in between. One still in progress at the horizon, or never
// followed by a stable group, has not converged and took at least until the
// horizon.
func (w *world) convergence(d disturbance) (Convergence, time.Duration) {
	horizon := w.sc.Duration
	c := Convergence{Disturbance: d.label, At: sec(d.start), Converged: true}
	at, ok := w.convergedAt(d.end)
	var took time.Duration
	switch {
	case d.end > horizon || !ok:
		c.Converged, took = false, horizon-d.start
	case w.unstableBetween(d.start, at):
		took = at - d.start
	}
	c.Seconds = sec(took)
	return c, took
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
	}
	m := &r.Metrics
	m.Rebalances = w.rebalances
	m.RejectedCommits = w.rejectedCommits
	// The chart's steps, the episodes and the whole measurement window
	// are measured in the same passes over the pieces: the last is the
	// run's histogram and percentiles, which the ledger's metrics read.
	a, b := sec(l.windowStart), sec(horizon)
	steps, episodes := latencySeriesBounds(a, b), w.episodeBounds()
	var windows [][]LatencyStats
	l.hist, windows = latencyWithin(l.pieces.read(), a, b, steps, episodes)
	l.histA, l.histB = a, b
	l.partitionMetrics(m)
	for _, p := range w.procs {
		m.MemberIdleSeconds += sec(p.idleTotal)
	}
	m.PeakLagRecords = l.peakLag
	m.LagRecoverySeconds = sec(l.lagRecovery())
	w.opsMetrics(m, r)
	m.Converged = true
	var worst time.Duration
	for _, d := range w.disturbances {
		// A disturbance the horizon cuts off before it starts never
		// happened: it is counted, not judged.
		if d.start >= horizon {
			r.DisturbancesNotReached++
			continue
		}
		r.Disturbances = append(r.Disturbances, d.out())
		c, took := w.convergence(d)
		r.Convergence = append(r.Convergence, c)
		worst = max(worst, took)
		m.Converged = m.Converged && c.Converged
	}
	m.ConvergenceSeconds = sec(worst)
	if !w.converged {
		m.Converged = false
		r.Findings = append(r.Findings, w.notConvergedFinding())
	}
	for _, p := range w.procs {
		r.Members = append(r.Members, MemberMetrics{Member: p.name, Metrics: p.metrics.named(horizon), Utilisation: l.utilisation(p.idx)})
	}
	for i := range r.Convergence {
		if j, ok := slices.BinarySearch(episodes, r.Convergence[i].At); ok && j < len(windows[1]) {
			r.Convergence[i].Latency = windows[1][j]
		}
	}
	r.LatencyHistogram = l.latencyHist(a, b).buckets()
	r.Series.Latency = latencySeriesOf(steps, windows[0])
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
	switch {
	case w.coord == nil && !w.coordStable:
		// A replayed run: the coordinator is real, and only its
		// Stable-or-not was observed.
		state = "not stable"
	case w.coord != nil && !w.coord.Stable():
		state = w.coord.State()
	}
	f.Detail = fmt.Sprintf("the group was not stable at the horizon: %d members pending, %d partitions without exactly one owner, group state %s", len(f.Members), len(bad), state)
	return f
}

func (w *world) zombieFinding() Finding {
	l := w.ledger
	f := Finding{Kind: "zombie_processing", At: sec(l.firstZombie), Members: l.zombieMembers,
		Detail: "a member the coordinator had fenced or removed went on processing partitions it believed it owned"}
	for i := range l.parts {
		p := l.part(i)
		if p.zombieSec > 0 && len(f.Partitions) < 20 {
			f.Partitions = append(f.Partitions, p.name)
		}
	}
	return f
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

// episodeBounds are the bounds of the disturbances' episodes: each runs
// from a disturbance's start to the next one that starts later (or the
// horizon), and covers the records processed then. Disturbances at one
// instant share their episode.
func (w *world) episodeBounds() []float64 {
	bounds := make([]float64, 0, len(w.disturbances)+1)
	for _, d := range w.disturbances {
		bounds = append(bounds, sec(d.start))
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	if len(bounds) == 0 {
		return bounds
	}
	return append(bounds, max(sec(w.sc.Duration), bounds[len(bounds)-1]))
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
			if dist.start <= d.at {
				rd.Disturbance = dist.label
			}
		}
		if k := len(out) - 1; k >= 0 && out[k].Rebalance == rd.Rebalance && rd.Rebalance > 0 {
			out[k].Records += d.records
			continue
		}
		rd.Records = d.records
		out = append(out, rd)
	}
	for i := range out {
		out[i].Records = roundRecords(out[i].Records)
	}
	return out
}
