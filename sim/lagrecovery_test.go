package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// slowRecovery is the oracle: with every point kept, the last instant the
// piecewise-linear path is above threshold, found by walking all segments.
func slowRecovery(ts []time.Duration, vs []float64, threshold float64) time.Duration {
	last := time.Duration(-1)
	for i := range ts {
		if vs[i] <= threshold {
			continue
		}
		if i == len(ts)-1 {
			last = ts[i]
			continue
		}
		if vs[i+1] > threshold {
			continue // the next point is later and above too
		}
		frac := (vs[i] - threshold) / (vs[i] - vs[i+1])
		last = ts[i] + time.Duration(math.Round(frac*float64(ts[i+1]-ts[i])))
	}
	if last < 0 {
		return 0
	}
	return last - ts[0]
}

// TestLagPathMatchesOracle feeds random lag paths to lagPath, raising its
// floor on the way as the ledger does when the peak grows, and compares
// its answer with the oracle's.
func TestLagPathMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := 1 + r.IntN(40)
		ts := make([]time.Duration, n)
		vs := make([]float64, n)
		// Small values exercise the one-record tolerance, large ones the
		// 1% of the peak.
		scale := []int{50, 5000}[r.IntN(2)]
		at := time.Duration(r.IntN(1000)) * time.Millisecond
		for i := range n {
			ts[i] = at
			at += time.Duration(r.IntN(3)) * time.Duration(1+r.IntN(5000)) * time.Millisecond
			vs[i] = float64(r.IntN(scale))
			if r.IntN(4) == 0 {
				vs[i] = 0
			}
		}
		var p lagPath
		p.begin(ts[0], vs[0])
		peak := vs[0]
		for i := 1; i < n; i++ {
			p.record(ts[i], vs[i])
			if vs[i] > peak {
				peak = vs[i]
				p.raiseFloor(p.base + max(1, 0.01*peak))
			}
		}
		threshold := p.base + max(1, 0.01*peak)
		if got, want := p.recovery(threshold), slowRecovery(ts, vs, threshold); got != want {
			t.Fatalf("trial %d: recovery %v, oracle %v\npoints %v\nvalues %v", trial, got, want, ts, vs)
		}
	}
}
