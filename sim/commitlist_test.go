package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// TestCommitListsStayAsSent drives the random ledger's claims and commits
// with the requests answered in any order; some are never answered (lost
// with their connection), some rejected in part (the request goes on to
// the client) and some answered twice (an answer applied again must not
// free a list early). After every step every request not done with must
// carry exactly the partitions it was built with, those its indexes
// name. Lists must also be built in the memory of earlier ones, or the
// test would show nothing.
func TestCommitListsStayAsSent(t *testing.T) {
	reused := 0
	for seed := range uint64(60) {
		f := newLedgerFuzz(rand.New(rand.NewPCG(seed, 23)))
		extra := rand.New(rand.NewPCG(seed, 29))
		var lost []fuzzCommit
		seen := map[*kafka.TopicPartition]*int{}
		for step := range 400 {
			f.now += time.Duration(f.rng.IntN(500)) * time.Millisecond
			f.change()
			switch extra.IntN(8) {
			case 0:
				if n := len(f.inflight); n > 0 {
					k := extra.IntN(n)
					lost = append(lost, f.inflight[k])
					f.inflight = slices.Delete(f.inflight, k, k+1)
				}
			case 1:
				if n := len(f.answered); n > 0 {
					c := f.answered[extra.IntN(n)]
					f.l.Answered(c.proc, c.pos)
				}
			}
			for _, c := range f.inflight {
				if len(c.tps) == 0 {
					continue
				}
				// Requests of one list share its indexes too.
				mem, list := &c.pos.tps[0], &c.pos.idxs[0]
				if was, ok := seen[mem]; ok && was != list {
					reused++
				}
				seen[mem] = list
			}
			for _, held := range [][]fuzzCommit{f.inflight, f.rejected, lost} {
				for _, c := range held {
					checkCarried(t, f.l, c, seed, step)
				}
			}
		}
	}
	if reused == 0 {
		t.Fatalf("no commit list was built in an earlier one's memory")
	}
}

// checkCarried fails if request c no longer carries the partitions it
// was built with.
func checkCarried(t *testing.T, l *ledger, c fuzzCommit, seed uint64, step int) {
	t.Helper()
	if !slices.Equal(c.pos.tps, c.tps) {
		t.Fatalf("seed %d step %d: request %d of process %d carries %v, built with %v", seed, step, c.pos.send.id, c.proc, c.pos.tps, c.tps)
	}
	for k, idx := range c.pos.idxs {
		if c.tps[k] != l.tps[idx] {
			t.Fatalf("seed %d step %d: request %d of process %d lists %v at %d, its index names %v", seed, step, c.pos.send.id, c.proc, c.tps[k], k, l.tps[idx])
		}
	}
}

// TestCommitListReuse walks commitList through its cases by hand: a list
// carried by an unanswered request is not changed, and the next is built
// in memory of its own; a list whose requests are all answered is changed
// in place, whether an answer came once or twice.
func TestCommitListReuse(t *testing.T) {
	var tps []kafka.TopicPartition
	for p := range int32(8) {
		tps = append(tps, kafka.TopicPartition{Topic: "t", Partition: p})
	}
	var c commitList
	relistTo := func(owned ...int) []kafka.TopicPartition {
		c.listed = false
		c.list(owned, tps)
		return c.current()
	}
	same := func(a, b []kafka.TopicPartition) bool { return &a[0] == &b[0] }

	l1 := relistTo(0, 1, 2)
	c.carry(1)
	l2 := relistTo(0, 1, 2, 3)
	if same(l1, l2) || !slices.Equal(l1, tps[0:3]) {
		t.Fatalf("the list request 1 carries was changed to %v", l1)
	}
	c.carry(2)
	c.answered(2)
	c.answered(2)
	l3 := relistTo(1, 2, 3)
	if !same(l3, l2) || !slices.Equal(l3, tps[1:4]) {
		t.Fatalf("a list nobody carries was not changed in place to %v", tps[1:4])
	}
	c.carry(3)
	c.carry(4)
	c.answered(3)
	l4 := relistTo(2, 3)
	if same(l4, l3) || !slices.Equal(l3, tps[1:4]) || !slices.Equal(l4, tps[2:4]) {
		t.Fatalf("the list request 4 carries was changed to %v", l3)
	}
}

// TestEdit checks that a list changed in place names the same partitions
// as looking each up: lists drawn from 40 or 400 partitions (long runs
// compared a block at a time), the new one mostly the old with a few
// dropped and added, in memory with room for it.
func TestEdit(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 11))
	var tps []kafka.TopicPartition
	for p := range int32(400) {
		tps = append(tps, kafka.TopicPartition{Topic: "t", Partition: p})
	}
	for c := range 2000 {
		n, changes := 40, 8
		if c%2 == 1 {
			n, changes = 400, 100
		}
		var was, owned []int
		for idx := range n {
			in := rng.IntN(2) == 0
			if in {
				was = append(was, idx)
			}
			if in != (rng.IntN(changes) == 0) {
				owned = append(owned, idx)
			}
		}
		list := make([]kafka.TopicPartition, len(was), max(len(was), len(owned)))
		for k, idx := range was {
			list[k] = tps[idx]
		}
		got := edit(list, was, owned, tps)
		if len(got) != len(owned) {
			t.Fatalf("edit(%v from %v) lists %d partitions", owned, was, len(got))
		}
		for k, idx := range owned {
			if got[k] != tps[idx] {
				t.Fatalf("edit(%v from %v)[%d] = %v, want %v", owned, was, k, got[k], tps[idx])
			}
		}
	}
}
