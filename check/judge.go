package check

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// judgeBound checks a metric bound on one run; ref is the run of the
// protocol a comparison refers to, on the same seed.
func judgeBound(b scenarios.Bound, r, ref *sim.Result) outcome {
	v, _ := r.Metrics.Value(b.Metric)
	limit := b.Value
	var o outcome
	if b.FractionOf != "" {
		rv, _ := ref.Metrics.Value(b.Metric)
		limit = b.Value * rv
		ratio := "∞ ×"
		switch {
		case rv != 0 && v != 0 && fmtNum(v/rv) == "0":
			ratio = "< 0.001 ×"
		case rv != 0:
			ratio = fmtNum(v/rv) + " ×"
		case v == 0:
			ratio = "0 ×"
		}
		o.measured = fmt.Sprintf("%s, %s %s's %s", fmtNum(v), ratio, b.FractionOf, fmtNum(rv))
	} else {
		o.measured = fmtNum(v)
		if fmtNum(v) == fmtNum(limit) && v != limit {
			o.measured = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	holds := v >= limit
	o.badness = limit - v
	if b.IsMax {
		holds = v <= limit
		o.badness = v - limit
	}
	o.status = Pass
	if !holds {
		o.status = Fail
		o.at, o.atLabel, o.hasAt = whereBoundBroke(r, b.Metric, limit, b.IsMax)
	}
	return o
}

// whereBoundBroke finds where in virtual time a metric went past its
// bound: for the cumulative series (moved partitions, revocations, lag),
// the disturbance nearest before the first sample past the bound; for
// convergence, the disturbance that took longest; otherwise the first
// disturbance, since the metrics cover the window from it on.
func whereBoundBroke(r *sim.Result, metric string, limit float64, isMax bool) (float64, string, bool) {
	if isMax {
		series := seriesOf(&r.Series, metric)
		switch metric {
		case "convergence_seconds":
			worst := -1
			for i, c := range r.Convergence {
				if worst < 0 || c.Seconds > r.Convergence[worst].Seconds {
					worst = i
				}
			}
			if worst >= 0 {
				c := r.Convergence[worst]
				return c.At, c.Disturbance, true
			}
		}
		for i, v := range series {
			if v > limit && i < len(r.Series.Times) && r.Series.Times[i] >= r.WindowStart {
				return disturbanceBefore(r, r.Series.Times[i])
			}
		}
	}
	return firstDisturbance(r)
}

// disturbanceBefore returns the disturbance that started last at or
// before t (the first one when none did).
func disturbanceBefore(r *sim.Result, t float64) (float64, string, bool) {
	best := -1
	for i, d := range r.Disturbances {
		if d.Start <= t && (best < 0 || d.Start > r.Disturbances[best].Start) {
			best = i
		}
	}
	if best < 0 {
		return firstDisturbance(r)
	}
	return r.Disturbances[best].Start, r.Disturbances[best].Label, true
}

func firstDisturbance(r *sim.Result) (float64, string, bool) {
	best := -1
	for i, d := range r.Disturbances {
		if best < 0 || d.Start < r.Disturbances[best].Start {
			best = i
		}
	}
	if best < 0 {
		return 0, "", false
	}
	return r.Disturbances[best].Start, r.Disturbances[best].Label, true
}

// judgeConvergence checks converged_within on one run, in the manner of
// deterministic simulation testing: faults heal when their disturbance
// ends (a pause, stall or network partition is over, a restarted member
// is back), and from then on the group must be stable again within the
// bound. Disturbances that overlap in time form one episode, which heals
// when the last of them ends. A group still unstable at the horizon fails
// when the bound had elapsed by then, and is undecided when it had not.
func judgeConvergence(within time.Duration, r *sim.Result) outcome {
	bound := within.Seconds()
	o := outcome{status: Pass, measured: "stable throughout"}
	worst, worstAfter := -1, -1.0
	fail, undecided := -1, -1
	var failAfter float64
	for _, ep := range episodes(r) {
		d, c := disturbanceOf(r, ep.last), r.Convergence[ep.last]
		if !c.Converged {
			if r.WindowEnd-d.End >= bound {
				if fail < 0 || !math.IsInf(failAfter, 1) {
					fail, failAfter = ep.last, math.Inf(1)
				}
			} else if undecided < 0 {
				undecided = ep.last
			}
			continue
		}
		after := max(0, c.Seconds-(d.End-d.Start))
		if after > bound && fail < 0 {
			fail, failAfter = ep.last, after
		}
		if after > worstAfter {
			worst, worstAfter = ep.last, after
		}
	}
	pending := pendingDetail(r)
	switch {
	case fail >= 0:
		d := disturbanceOf(r, fail)
		o.status, o.at, o.atLabel, o.hasAt, o.badness = Fail, d.End, d.Label, true, failAfter
		if math.IsInf(failAfter, 1) {
			o.measured = fmt.Sprintf("never stable again after %s ended: still unstable at the horizon, %s later", d.Label, fmtSeconds(r.WindowEnd-d.End))
			o.detail = pending
		} else {
			o.measured = fmt.Sprintf("stable again %s after %s ended", fmtSeconds(failAfter), d.Label)
		}
	case undecided >= 0:
		d := disturbanceOf(r, undecided)
		o.status, o.at, o.atLabel, o.hasAt, o.badness = Undecided, d.End, d.Label, true, math.Inf(1)
		o.measured = fmt.Sprintf("not stable by the horizon, which comes only %s after %s ended: cannot decide; lengthen duration:", fmtSeconds(r.WindowEnd-d.End), d.Label)
		o.detail = pending
	case !r.Metrics.Converged:
		// Every episode settled, yet the group is unstable at the horizon:
		// it fell apart again without a disturbance of its own.
		last, label := 0.0, ""
		for i := range r.Convergence {
			if d := disturbanceOf(r, i); d.End >= last {
				last, label = d.End, d.Label
			}
		}
		o.at, o.atLabel, o.hasAt, o.badness = r.WindowEnd, "the horizon", true, math.Inf(1)
		o.detail = pending
		o.status = Fail
		if r.WindowEnd-last < bound {
			o.status = Undecided
		}
		o.measured = fmt.Sprintf("unstable at the horizon, %s after the last disturbance (%s) ended", fmtSeconds(r.WindowEnd-last), label)
	case worst >= 0:
		o.badness = worstAfter
		o.measured = fmt.Sprintf("stable again at most %s after a disturbance ended (%s)", fmtSeconds(worstAfter), disturbanceOf(r, worst).Label)
	}
	return o
}

// episode is a run of disturbances that overlap in time; last is the index
// of the one that ends last, when the episode's faults have all healed.
type episode struct{ last int }

// episodes groups a run's disturbances into episodes, in time order.
func episodes(r *sim.Result) []episode {
	idx := make([]int, len(r.Convergence))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Compare(disturbanceOf(r, a).Start, disturbanceOf(r, b).Start)
	})
	var out []episode
	end := math.Inf(-1)
	for _, i := range idx {
		d := disturbanceOf(r, i)
		if len(out) == 0 || d.Start > end {
			out = append(out, episode{last: i})
			end = d.End
			continue
		}
		if d.End >= end {
			out[len(out)-1].last, end = i, d.End
		}
	}
	return out
}

// disturbanceOf returns the disturbance that r.Convergence[i] is about.
func disturbanceOf(r *sim.Result, i int) sim.Disturbance {
	if i < len(r.Disturbances) && r.Disturbances[i].Label == r.Convergence[i].Disturbance {
		return r.Disturbances[i]
	}
	c := r.Convergence[i]
	return sim.Disturbance{Label: c.Disturbance, Start: c.At, End: c.At}
}

// pendingDetail names what was still pending at the horizon, from the
// run's not_converged finding.
func pendingDetail(r *sim.Result) string {
	for _, f := range r.Findings {
		if f.Kind != "not_converged" {
			continue
		}
		var parts []string
		if len(f.Members) > 0 {
			parts = append(parts, "members "+list(f.Members, 10))
		}
		if len(f.Partitions) > 0 {
			parts = append(parts, "partitions "+list(f.Partitions, 10))
		}
		text := "pending at the horizon: " + strings.Join(parts, "; ")
		if len(parts) == 0 {
			text = "not stable at the horizon"
		}
		return text + " (" + f.Detail + ")"
	}
	return ""
}

// judgeZombie checks no_zombie_processing on one run.
func judgeZombie(r *sim.Result) outcome {
	o := outcome{status: Pass, measured: "no zombie processing"}
	secs := r.Metrics.ZombieProcessingSeconds
	for _, f := range r.Findings {
		if f.Kind == "zombie_processing" {
			o.status, o.at, o.atLabel, o.hasAt = Fail, f.At, "", true
			o.detail = findingDetail(f)
			break
		}
	}
	if secs > 0 && o.status == Pass {
		o.status = Fail
		o.at, o.atLabel, o.hasAt = firstDisturbance(r)
	}
	if o.status == Fail {
		o.badness = secs
		o.measured = fmt.Sprintf("%s of zombie processing", fmtSeconds(secs))
		if o.atLabel == "" {
			_, o.atLabel, _ = disturbanceBefore(r, o.at)
		}
	}
	return o
}

// judgeSafety checks one run for double ownership.
func judgeSafety(r *sim.Result) outcome {
	o := outcome{status: Pass, measured: "no double ownership"}
	for _, f := range r.Findings {
		if f.Safety {
			o.status, o.at, o.hasAt = Fail, f.At, true
			_, o.atLabel, _ = disturbanceBefore(r, f.At)
			o.detail = findingDetail(f)
			break
		}
	}
	if secs := r.Metrics.DoubleOwnershipSeconds; secs > 0 || o.status == Fail {
		if o.status == Pass {
			o.status = Fail
			o.at, o.atLabel, o.hasAt = firstDisturbance(r)
		}
		o.badness = secs
		o.measured = fmt.Sprintf("%s of double ownership", fmtSeconds(secs))
	}
	return o
}

func findingDetail(f sim.Finding) string {
	text := fmt.Sprintf("%s at %s", f.Kind, fmtSeconds(f.At))
	if len(f.Members) > 0 {
		text += ": members " + list(f.Members, 10)
	}
	if len(f.Partitions) > 0 {
		text += "; partitions " + list(f.Partitions, 10)
	}
	if f.Detail != "" {
		text += " (" + f.Detail + ")"
	}
	return text
}

// seriesOf is the cumulative series of a metric, nil for a metric without
// one.
func seriesOf(s *sim.Series, metric string) []float64 {
	switch metric {
	case "moved_partitions":
		return s.Moved
	case "revocations":
		return s.Revocations
	case "peak_lag_records":
		return s.Lag
	}
	return nil
}
