package sim

import (
	"cmp"
	"math"
	"slices"
)

// End-to-end record latency, exact from the fluid model.
//
// Records of one partition leave in the order they were produced, so the
// record that leaves when the partition's processed count reaches x is the
// one produced when its produced count reached x: its latency is the
// difference of the two instants. Between two ledger changes a partition
// is processed at a constant rate and produced at a constant rate, so the
// latency of the records leaving moves linearly with their departure time.
// The ledger records each such stretch as one latencyPiece (records spread
// evenly over departure times [t0, t1], latency moving from w0 to w1), and
// every statistic is computed from the pieces: nothing is sampled and
// nothing is done per record.
//
// Records still waiting at the horizon are counted with their age at the
// horizon, the least latency they can have: a partition that never drains
// raises the percentiles rather than dropping out of them.

// latencyPiece is a stretch of departures of one partition.
type latencyPiece struct {
	t0, t1 float64 // departure times, seconds
	w0, w1 float64 // latency of the records leaving at t0 and at t1
	mass   float64 // records
}

// clip returns the part of the piece that leaves within [a, b].
func (q latencyPiece) clip(a, b float64) (latencyPiece, bool) {
	if q.t1 == q.t0 {
		return q, q.t0 >= a && q.t0 <= b && q.mass > 0
	}
	lo, hi := max(q.t0, a), min(q.t1, b)
	if hi <= lo {
		return latencyPiece{}, false
	}
	at := func(t float64) float64 { return q.w0 + (q.w1-q.w0)*(t-q.t0)/(q.t1-q.t0) }
	out := latencyPiece{t0: lo, t1: hi, w0: at(lo), w1: at(hi), mass: q.mass * (hi - lo) / (q.t1 - q.t0)}
	return out, out.mass > 0
}

// LatencyStats are the latency percentiles of a set of records, weighted
// by records.
type LatencyStats struct {
	Records float64 `json:"records"`
	P50     float64 `json:"latency_p50_seconds"`
	P99     float64 `json:"latency_p99_seconds"`
	P999    float64 `json:"latency_p999_seconds"`
	Max     float64 `json:"latency_max_seconds"`
}

// latencyQuantiles are the quantiles LatencyStats reports, in order.
var latencyQuantiles = [...]float64{0.5, 0.99, 0.999}

// latencyEdge is a change of the latency density at x: an atom of mass
// (a piece whose latency does not move) or a step of density.
type latencyEdge struct {
	x, atom, density float64
}

// latencyOver computes the exact percentiles of the records leaving within
// [a, b]. The latency distribution is a mixture of uniform distributions
// (one per piece) and atoms, so its distribution function is piecewise
// linear: one sweep over the sorted edges finds every quantile.
func latencyOver(pieces []latencyPiece, a, b float64) LatencyStats {
	edges := make([]latencyEdge, 0, 2*len(pieces))
	var st LatencyStats
	for _, q := range pieces {
		c, ok := q.clip(a, b)
		if !ok {
			continue
		}
		lo, hi := min(c.w0, c.w1), max(c.w0, c.w1)
		st.Max = max(st.Max, hi)
		if hi-lo <= 1e-12*max(1, hi) {
			edges = append(edges, latencyEdge{x: lo, atom: c.mass})
		} else {
			d := c.mass / (hi - lo)
			edges = append(edges, latencyEdge{x: lo, density: d}, latencyEdge{x: hi, density: -d})
		}
	}
	// A total order, so that the sums below do not depend on the order
	// events happened to produce the pieces in.
	slices.SortFunc(edges, func(p, q latencyEdge) int {
		return cmp.Or(cmp.Compare(p.x, q.x), cmp.Compare(p.atom, q.atom), cmp.Compare(p.density, q.density))
	})
	total := totalMass(edges)
	st.Records = total
	if total <= 0 {
		return st
	}
	out := []*float64{&st.P50, &st.P99, &st.P999}
	next := 0
	cum, density, prev := 0.0, 0.0, 0.0
	for i := 0; i < len(edges) && next < len(out); {
		x := edges[i].x
		if seg := density * (x - prev); seg > 0 {
			for next < len(out) && cum+seg >= latencyQuantiles[next]*total {
				*out[next] = prev + (latencyQuantiles[next]*total-cum)/density
				next++
			}
			cum += seg
		}
		for ; i < len(edges) && edges[i].x == x; i++ {
			cum += edges[i].atom
			density += edges[i].density
		}
		for next < len(out) && cum >= latencyQuantiles[next]*total*(1-1e-12) {
			*out[next] = x
			next++
		}
		prev = x
	}
	for ; next < len(out); next++ {
		*out[next] = st.Max
	}
	return st
}

// totalMass sums the mass of sorted edges: atoms, and each density over
// the stretch it holds.
func totalMass(edges []latencyEdge) float64 {
	total, density, prev := 0.0, 0.0, 0.0
	for _, e := range edges {
		total += density * (e.x - prev)
		total += e.atom
		density += e.density
		prev = e.x
	}
	return total
}

// LatencyBucket is one bucket of the latency histogram: the records whose
// latency lies in (Lower, Upper]; the first bucket holds latency 0 exactly.
type LatencyBucket struct {
	Lower   float64 `json:"lower_seconds"`
	Upper   float64 `json:"upper_seconds"`
	Records float64 `json:"records"`
}

// latencyBounds are the histogram's bucket bounds in seconds: 0, then 1,
// 2, 5 per decade from 1ms to 100000s. They are fixed, so histograms of
// two runs line up bucket by bucket.
var latencyBounds = func() []float64 {
	out := []float64{0}
	for e := -3; e <= 5; e++ {
		for _, m := range []float64{1, 2, 5} {
			out = append(out, m*math.Pow(10, float64(e)))
		}
	}
	return out
}()

// latencyHistogram spreads the records leaving within [a, b] over the
// fixed buckets; only buckets that hold records are listed. A piece's
// records are spread evenly over its latency range, as they are.
func latencyHistogram(pieces []latencyPiece, a, b float64) []LatencyBucket {
	n := len(latencyBounds)
	mass := make([]float64, n+1) // mass[0]: latency 0; mass[i]: (bounds[i-1], bounds[i]]; mass[n]: beyond
	for _, q := range pieces {
		c, ok := q.clip(a, b)
		if !ok {
			continue
		}
		lo, hi := min(c.w0, c.w1), max(c.w0, c.w1)
		if hi-lo <= 1e-12*max(1, hi) {
			mass[bucketOf(hi)] += c.mass
			continue
		}
		for i := bucketOf(lo); i <= bucketOf(hi); i++ {
			blo, bhi := 0.0, math.Inf(1)
			if i > 0 {
				blo = latencyBounds[i-1]
			}
			if i < n {
				bhi = latencyBounds[i]
			}
			if w := min(hi, bhi) - max(lo, blo); w > 0 {
				mass[i] += c.mass * w / (hi - lo)
			}
		}
	}
	out := []LatencyBucket{}
	for i, m := range mass {
		if m <= 0 {
			continue
		}
		b := LatencyBucket{Records: m}
		switch {
		case i == 0:
		case i == n:
			b.Lower, b.Upper = latencyBounds[n-1], math.MaxFloat64
		default:
			b.Lower, b.Upper = latencyBounds[i-1], latencyBounds[i]
		}
		out = append(out, b)
	}
	return out
}

// bucketOf returns the histogram bucket of latency w.
func bucketOf(w float64) int {
	if w <= 0 {
		return 0
	}
	i, _ := slices.BinarySearch(latencyBounds, w)
	return i
}

// LatencySeries are latency percentiles over virtual time: each point
// covers the records that left in the step ending at Times[i].
type LatencySeries struct {
	Step  float64   `json:"step_seconds"`
	Times []float64 `json:"times"`
	P50   []float64 `json:"latency_p50_seconds"`
	P99   []float64 `json:"latency_p99_seconds"`
	Max   []float64 `json:"latency_max_seconds"`
}

// latencySeriesSteps is how many points a latency chart has.
const latencySeriesSteps = 120

// latencyOverTime computes the latency series over [a, b]. Pieces are
// bucketed by the steps they overlap first, so each step sweeps only its
// own pieces.
func latencyOverTime(pieces []latencyPiece, a, b float64) LatencySeries {
	s := LatencySeries{Times: []float64{}, P50: []float64{}, P99: []float64{}, Max: []float64{}}
	if b <= a {
		return s
	}
	step := (b - a) / latencySeriesSteps
	s.Step = step
	bins := make([][]latencyPiece, latencySeriesSteps)
	for _, q := range pieces {
		first := int(math.Floor((q.t0 - a) / step))
		last := int(math.Floor((q.t1 - a) / step))
		for i := max(min(first, latencySeriesSteps-1), 0); i <= min(last, latencySeriesSteps-1); i++ {
			if c, ok := q.clip(a+float64(i)*step, a+float64(i+1)*step); ok {
				bins[i] = append(bins[i], c)
			}
		}
	}
	for i, bin := range bins {
		st := latencyOver(bin, math.Inf(-1), math.Inf(1))
		s.Times = append(s.Times, a+float64(i+1)*step)
		s.P50 = append(s.P50, st.P50)
		s.P99 = append(s.P99, st.P99)
		s.Max = append(s.Max, st.Max)
	}
	return s
}
