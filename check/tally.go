package check

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
)

// tally folds one check's per-seed outcomes into its verdict as the seeds
// finish, in any order, so that a check over N seeds keeps what its Case
// shows rather than N results: counts, the failing seeds, and the
// n-need+1 worst outcomes, the least bad of which is the outcome at rank
// need from the best (the worst of all when every seed must hold).
type tally struct {
	n, need         int
	everySeed       bool
	held, undecided int
	// failing are the seeds the check failed on, with their positions.
	failing []failedSeed
	// worst is a min-heap, by rank, of the worst outcomes so far.
	worst worstHeap
}

// placed is an outcome with its position in the check's list of seeds,
// which breaks ties between equally bad outcomes as a stable sort of
// that list would.
type placed struct {
	pos int
	o   outcome
}

// failedSeed is a seed the check failed on and its position.
type failedSeed struct {
	pos  int
	seed uint64
}

// newTally prepares the tally of a check over n seeds that must hold on
// ⌈q × n⌉ of them (at least one).
func newTally(n int, q float64) *tally {
	need := min(max(int(math.Ceil(q*float64(n)-1e-9)), 1), n)
	return &tally{n: n, need: need, everySeed: q == 1}
}

// add records the outcome on the seed at position pos of the check's
// seeds.
func (t *tally) add(pos int, o outcome) {
	switch o.status {
	case Pass:
		t.held++
	case Undecided:
		t.undecided++
	default:
		t.failing = append(t.failing, failedSeed{pos, o.seed})
	}
	keep := t.n - t.need + 1
	switch {
	case len(t.worst) < keep:
		heap.Push(&t.worst, placed{pos, o})
	case rankCompare(placed{pos, o}, t.worst[0]) > 0:
		t.worst[0] = placed{pos, o}
		heap.Fix(&t.worst, 0)
	}
}

// result is the verdict once every seed is in: it passes when the check
// held on at least need seeds, is undecided when it would with the
// undecided seeds counted in, and fails otherwise.
func (t *tally) result() Case {
	status := Fail
	switch {
	case t.held >= t.need:
		status = Pass
	case t.held+t.undecided >= t.need:
		status = Undecided
	}
	var shown outcome
	if len(t.worst) > 0 {
		shown = t.worst[0].o
	}
	slices.SortFunc(t.failing, func(a, b failedSeed) int { return cmp.Compare(a.pos, b.pos) })
	var failing []uint64
	for _, f := range t.failing {
		if !slices.Contains(failing, f.seed) {
			failing = append(failing, f.seed)
		}
	}
	c := Case{Status: status, Measured: shown.measured, Seed: shown.seed, Shuffled: shown.shuffled,
		Seeds: t.n, Held: t.held, Needed: t.need, Detail: shown.detail, FailingSeeds: failing, everySeed: t.everySeed}
	if status != Pass {
		c.At, c.AtLabel, c.HasAt = shown.at, shown.atLabel, shown.hasAt
	}
	return c
}

// rankCompare orders outcomes from best to worst: by status, then by
// badness, then by position.
func rankCompare(a, b placed) int {
	return cmp.Or(cmp.Compare(statusRank(a.o.status), statusRank(b.o.status)),
		cmp.Compare(a.o.badness, b.o.badness), cmp.Compare(a.pos, b.pos))
}

type worstHeap []placed

func (h worstHeap) Len() int           { return len(h) }
func (h worstHeap) Less(i, j int) bool { return rankCompare(h[i], h[j]) < 0 }
func (h worstHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstHeap) Push(x any)        { *h = append(*h, x.(placed)) }
func (h *worstHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// aggregate folds outcomes given in seed order, for a check that must hold
// on a share q of them.
func aggregate(outs []outcome, q float64) Case {
	t := newTally(len(outs), q)
	for i, o := range outs {
		t.add(i, o)
	}
	return t.result()
}
