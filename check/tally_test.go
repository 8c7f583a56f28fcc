package check

import (
	"cmp"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// sortedAggregate is the obvious oracle for tally: every outcome kept,
// sorted stably from best to worst, the one at rank ⌈q × n⌉ shown.
func sortedAggregate(outs []outcome, q float64) Case {
	n := len(outs)
	need := min(max(int(math.Ceil(q*float64(n)-1e-9)), 1), n)
	held, undecided := 0, 0
	var failing []uint64
	for _, o := range outs {
		switch o.status {
		case Pass:
			held++
		case Undecided:
			undecided++
		default:
			if !slices.Contains(failing, o.seed) {
				failing = append(failing, o.seed)
			}
		}
	}
	status := Fail
	switch {
	case held >= need:
		status = Pass
	case held+undecided >= need:
		status = Undecided
	}
	sorted := slices.Clone(outs)
	slices.SortStableFunc(sorted, func(a, b outcome) int {
		return cmp.Or(cmp.Compare(statusRank(a.status), statusRank(b.status)), cmp.Compare(a.badness, b.badness))
	})
	shown := sorted[need-1]
	c := Case{Status: status, Measured: shown.measured, Seed: shown.seed, Shuffled: shown.shuffled,
		Seeds: n, Held: held, Needed: need, Detail: shown.detail, FailingSeeds: failing, everySeed: q == 1}
	if status != Pass {
		c.At, c.AtLabel, c.HasAt = shown.at, shown.atLabel, shown.hasAt
	}
	return c
}

// TestTallyMatchesSortedOracle: outcomes folded in any order, keeping only
// the worst few, give the case that sorting all of them gives. Badness is
// drawn from a few values so that ties are common, and the tie between
// equally bad seeds must go to the later one, as a stable sort puts it.
func TestTallyMatchesSortedOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 1))
	quantiles := []float64{1, 0.99, 0.95, 0.9, 0.8, 0.5, 0.01}
	for trial := range 3000 {
		n := 1 + rng.IntN(40)
		outs := make([]outcome, n)
		for i := range outs {
			o := outcome{seed: uint64(100 + i), badness: float64(rng.IntN(5) - 2), at: float64(i)}
			switch rng.IntN(6) {
			case 0:
				o.status = Undecided
			case 1, 2:
				o.status = Fail
			default:
				o.status = Pass
			}
			o.measured = fmtNum(o.badness)
			outs[i] = o
		}
		q := quantiles[rng.IntN(len(quantiles))]
		want := sortedAggregate(outs, q)
		tl := newTally(n, q)
		for _, i := range rng.Perm(n) {
			tl.add(i, outs[i])
		}
		if got := tl.result(); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d, q=%v, n=%d: tally\n%+v\nsorted\n%+v", trial, q, n, got, want)
		}
	}
}

// TestTallyKeepsFewOutcomes: a tally keeps the n-need+1 worst outcomes,
// one when every seed must hold, however many seeds there are.
func TestTallyKeepsFewOutcomes(t *testing.T) {
	for _, c := range []struct {
		n    int
		q    float64
		want int // n - ⌈q × n⌉ + 1
	}{{1000, 1, 1}, {1000, 0.99, 11}, {1000, 0.95, 51}, {20, 0.95, 2}} {
		tl := newTally(c.n, c.q)
		for i := range c.n {
			tl.add(i, outcome{seed: uint64(i), status: Pass, badness: float64(i % 7)})
		}
		if len(tl.worst) != c.want {
			t.Errorf("n=%d q=%v: kept %d outcomes; want %d", c.n, c.q, len(tl.worst), c.want)
		}
	}
}
