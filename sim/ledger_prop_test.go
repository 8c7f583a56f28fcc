package sim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// TestLedgerRunningCountsOracle drives a ledger through random ownership
// and process changes and checks, at every step, that each process lists
// exactly the partitions it is an owner of, and the running figures the
// hot path reads against the slow walks they replace: Backlog (cached per
// instant) against advancing every owned partition and summing what the
// process's position is behind, ProcessingFraction against counting the
// partitions with a lag-driving owner, and the heap of zero-lag instants
// against sorting its entries by instant and then partition name. All
// comparisons are exact: the figures must be the same floating-point
// numbers, not close ones.
func TestLedgerRunningCountsOracle(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		now := time.Duration(0)
		l := newLedger(func() time.Duration { return now }, 2*time.Second, false)
		const procs, parts = 4, 12
		for i := range procs {
			l.addProcess(fmt.Sprintf("m%d", i), 50+float64(rng.IntN(200)))
			l.SetMember(i, 1)
			l.SetProcess(i, true, false, false)
		}
		for p := range int32(parts) {
			l.addPartition(kafka.TopicPartition{Topic: "t", Partition: p}, float64(rng.IntN(40)), nil, true)
		}
		tps := func() []kafka.TopicPartition {
			var out []kafka.TopicPartition
			for p := range int32(parts) {
				if rng.IntN(3) == 0 {
					out = append(out, kafka.TopicPartition{Topic: "t", Partition: p})
				}
			}
			return out
		}
		for step := range 300 {
			if rng.IntN(3) > 0 {
				now += time.Duration(rng.IntN(500)) * time.Millisecond
			}
			proc := rng.IntN(procs)
			switch rng.IntN(8) {
			case 0, 1:
				l.Assign(proc, tps())
			case 2:
				l.StartRevoke(proc, tps())
			case 3:
				l.Release(proc, tps(), rng.IntN(2) == 0, rng.IntN(2) == 0)
			case 4:
				l.SetProcess(proc, rng.IntN(5) > 0, rng.IntN(4) == 0, rng.IntN(4) == 0)
			case 5:
				l.Commit(proc)
			case 6:
				l.SetMember(proc, []int{-1, 1}[rng.IntN(2)])
			}
			for q := range procs {
				// A process's list of partitions is exactly those it is
				// an owner of, ascending (Release relies on it).
				var owns []int
				for idx := range l.parts {
					if l.ownershipOf(idx, q) != nil {
						owns = append(owns, idx)
					}
				}
				if !slices.Equal(owns, l.procs[q].owned) {
					t.Fatalf("seed %d step %d: process %d lists %v, owns %v", seed, step, q, l.procs[q].owned, owns)
				}
				got := l.Backlog(q)
				if again := l.Backlog(q); again != got {
					t.Fatalf("seed %d step %d: Backlog(%d) %v, then %v at the same instant", seed, step, q, got, again)
				}
				if want := oracleBacklog(l, q); got != want {
					t.Fatalf("seed %d step %d: Backlog(%d) = %v, oracle %v", seed, step, q, got, want)
				}
			}
			n := 0
			for idx, p := range l.parts {
				if l.processingOwner(p, idx) >= 0 {
					n++
				}
			}
			if got, want := l.ProcessingFraction(), float64(n)/parts; got != want {
				t.Fatalf("seed %d step %d: ProcessingFraction %v, oracle %v", seed, step, got, want)
			}
		}
		// The heap yields its entries by instant, then by partition name.
		items := slices.Clone(l.zeros.items)
		slices.SortFunc(items, func(a, b zeroAt) int {
			return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(l.parts[a.part].name, l.parts[b.part].name))
		})
		for i := range items {
			if got := l.zeros.pop(); got.at != items[i].at || l.parts[got.part].name != l.parts[items[i].part].name {
				t.Fatalf("seed %d: heap entry %d is %v, sorted oracle %v", seed, i, got, items[i])
			}
		}
	}
}

// oracleBacklog is Backlog as a plain walk: advance each partition the
// process owns to now and add up how far behind its position is.
func oracleBacklog(l *ledger, proc int) float64 {
	total := 0.0
	for _, idx := range l.procs[proc].owned {
		l.advance(idx)
		if o := l.ownershipOf(idx, proc); o != nil && !o.revoking {
			total += o.behind
		}
	}
	return total
}

// TestZeroHeapOrder pushes instants with many ties and checks that they
// come out by instant and then by partition name, which differs from the
// ledger's order ("t-10" before "t-2").
func TestZeroHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	l := newLedger(func() time.Duration { return 0 }, 0, false)
	for p := range int32(30) {
		l.addPartition(kafka.TopicPartition{Topic: "t", Partition: p}, 1, nil, true)
	}
	l.rankByName()
	var pushed []zeroAt
	for range 500 {
		z := zeroAt{at: time.Duration(rng.IntN(5)), part: rng.IntN(30)}
		pushed = append(pushed, z)
		l.zeros.push(z)
	}
	slices.SortStableFunc(pushed, func(a, b zeroAt) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(l.parts[a.part].name, l.parts[b.part].name))
	})
	for i, want := range pushed {
		if got := l.zeros.pop(); got.at != want.at || got.part != want.part {
			t.Fatalf("pop %d = %+v, want %+v", i, got, want)
		}
	}
}

// TestMergeSorted checks the one-pass union against sorting the two lists
// together and dropping repeats.
func TestMergeSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	list := func() []int {
		var out []int
		for i := range 20 {
			if rng.IntN(3) == 0 {
				out = append(out, i)
			}
		}
		return out
	}
	for range 500 {
		a, b := list(), list()
		if rng.IntN(4) == 0 {
			b = slices.Clone(a)
		}
		want := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a), b...))))
		if got := mergeSorted(a, b); !slices.Equal(got, want) {
			t.Fatalf("mergeSorted(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}
