package sim

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// TestLedgerRunningCountsOracle drives a ledger through random ownership
// and process changes and checks, at every step, that each process lists
// exactly the partitions it is an owner of, and the running figures the
// hot path reads against the slow walks they replace: Backlog (a sum of
// lag lines per process) against advancing every owned partition and
// summing what the process's position is behind, to rounding;
// ProcessingFraction against counting the partitions with a lag-driving
// owner, and the heap of zero-lag instants against sorting its entries by
// instant and then partition name, exactly.
func TestLedgerRunningCountsOracle(t *testing.T) {
	for seed := range uint64(40) {
		f := newLedgerFuzz(rand.New(rand.NewPCG(seed, 7)))
		l, rng := f.l, f.rng
		for step := range 300 {
			if rng.IntN(3) > 0 {
				f.now += time.Duration(rng.IntN(500)) * time.Millisecond
			}
			f.change()
			f.checkCommitted(t, seed, step)
			for q := range fuzzProcs {
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
				// Backlog adds lag lines per process, the oracle adds
				// the lags at now: the same sum in another order, so equal
				// to rounding (a few ulps of the lines' intercepts).
				if want := oracleBacklog(l, q); math.Abs(got-want) > 1e-9*max(1, want) {
					t.Fatalf("seed %d step %d: Backlog(%d) = %v, oracle %v", seed, step, q, got, want)
				}
			}
			n := 0
			for idx := range l.parts {
				p := l.part(idx)
				if l.processingOwner(p, idx) >= 0 {
					n++
				}
			}
			if got, want := l.ProcessingFraction(), float64(n)/fuzzParts; got != want {
				t.Fatalf("seed %d step %d: ProcessingFraction %v, oracle %v", seed, step, got, want)
			}
		}
		// The queue yields its entries by instant, then by partition name.
		var items []zeroAt
		for _, s := range l.zeros.slot {
			items = append(items, l.zeros.lists[s]...)
		}
		slices.SortFunc(items, func(a, b zeroAt) int {
			return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(l.part(a.part).name, l.part(b.part).name), cmp.Compare(b.ver, a.ver))
		})
		// A partition comes once an instant, with its last version.
		items = slices.CompactFunc(items, func(a, b zeroAt) bool { return a.at == b.at && a.part == b.part })
		i := 0
		for _, got := range takeAll(&l.zeros) {
			if got.at != items[i].at || l.part(got.part).name != l.part(items[i].part).name {
				t.Fatalf("seed %d: queue entry %d is %v, sorted oracle %v", seed, i, got, items[i])
			}
			i++
		}
		if i != len(items) {
			t.Fatalf("seed %d: the queue yields %d entries, holds %d", seed, i, len(items))
		}
	}
}

// oracleBacklog is Backlog as a plain walk: advance each partition the
// process owns to now and add up how far behind its position is; where the
// process drives the partition's lag, that is the lag line (at the instant
// the process takes over the lag, the line goes on from the previous
// driver's position, which the view taken before the change still shows).
func oracleBacklog(l *ledger, proc int) float64 {
	total := 0.0
	for _, idx := range l.procs[proc].owned {
		l.advance(idx)
		p := l.part(idx)
		o := l.ownershipOf(idx, proc)
		switch {
		case o == nil || o.revoking:
		case driverProc(p, l.processingOwner(p, idx)) == proc:
			total += l.lagAt(p, l.now())
		default:
			total += o.behind
		}
	}
	return total
}

// TestZeroQueueOrder pushes instants with many ties and checks that they
// come out by instant and then by partition name, which differs from the
// ledger's order ("t-10" before "t-2"), each partition once an instant
// with the last version pushed for it. Five instants over 500 pushes
// crowd about 100 entries into each (ordered by marking ranks); 5,000
// instants leave mostly one (ordered by sorting).
func TestZeroQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	l := newLedger(func() time.Duration { return 0 }, 0, false)
	for p := range int32(100) {
		l.addPartition(kafka.TopicPartition{Topic: "t", Partition: p}, 1, nil, true)
	}
	l.rankByName()
	for _, instants := range []int{5, 5000} {
		latest := map[[2]int]int{} // (instant, partition) -> last version pushed
		for ver := range 500 {
			z := zeroAt{at: time.Duration(rng.IntN(instants)), part: rng.IntN(100), ver: ver}
			latest[[2]int{int(z.at), z.part}] = ver
			l.zeros.push(z)
		}
		var want []zeroAt
		for k, ver := range latest {
			want = append(want, zeroAt{at: time.Duration(k[0]), part: k[1], ver: ver})
		}
		slices.SortFunc(want, func(a, b zeroAt) int {
			return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(l.part(a.part).name, l.part(b.part).name))
		})
		got := takeAll(&l.zeros)
		if !slices.Equal(got, want) {
			t.Fatalf("%d instants: the queue yields %v, want %v", instants, got, want)
		}
	}
}

// takeAll empties q, instant by instant.
func takeAll(q *zeroQueue) []zeroAt {
	var out []zeroAt
	for {
		if _, ok := q.next(); !ok {
			return out
		}
		out = append(out, q.take()...)
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

// TestLedgerViewsChangeNothing drives two ledgers through the same random
// ownership and process changes; the second is also viewed between them,
// at random instants: partitions advanced, Backlog and Positions asked,
// as a poll loop or a commit would. Everything the ledger measures must be
// the same floating-point numbers in both, since a partition accrues from
// its anchor in closed form and a view moves nothing: the metrics, each
// partition's peak lag, each process's processed count, every latency
// piece and the zombie findings.
func TestLedgerViewsChangeNothing(t *testing.T) {
	for seed := range uint64(40) {
		var fp [2]string
		for viewed := range 2 {
			f := newLedgerFuzz(rand.New(rand.NewPCG(seed, 11)))
			l, rng := f.l, f.rng
			views := rand.New(rand.NewPCG(seed, 13))
			for range 300 {
				step := time.Duration(rng.IntN(500)) * time.Millisecond
				if rng.IntN(3) == 0 {
					step = 0
				}
				// The second ledger is viewed at a few instants on the way
				// to the next change, in order.
				next := f.now + step
				for _, x := range slices.Sorted(slices.Values([]float64{views.Float64(), views.Float64()})) {
					if viewed == 0 {
						break
					}
					f.now += time.Duration(x * float64(next-f.now))
					for range views.IntN(4) {
						l.advance(views.IntN(fuzzParts))
					}
					l.Backlog(views.IntN(fuzzProcs))
					l.Positions(views.IntN(fuzzProcs))
				}
				f.now = next
				f.change()
			}
			fp[viewed] = ledgerMeasures(l)
		}
		if fp[0] != fp[1] {
			t.Fatalf("seed %d: viewing the ledger changed what it measured:\nunviewed %s\nviewed %s", seed, fp[0], fp[1])
		}
	}
}

// ledgerMeasures finishes l and prints everything it measured: the
// metrics, each partition's peak lag and age, each process's processed
// count, every latency piece, the zombie members and the findings.
func ledgerMeasures(l *ledger) string {
	l.finish()
	var m Metrics
	l.partitionMetrics(&m)
	out := fmt.Sprintf("%+v\nzombies %v from %v\nfindings %+v\n", m, l.zombieMembers, l.firstZombie, l.findings)
	for i := range l.parts {
		p := l.part(i)
		out += fmt.Sprintf("%s peak %v age %v\n", p.name, p.peakLag, p.maxAge)
	}
	for _, pr := range l.procs {
		out += fmt.Sprintf("%s processed %v\n", pr.name, pr.processed)
	}
	l.pieces.all(func(q *latencyPiece) { out += fmt.Sprintf("%+v\n", *q) })
	return out
}

// TestLedgerTouchPartsMatchesWalk drives two ledgers through the same
// random changes, one refreshing only the partitions a change to some of
// a process's claims reaches (touchParts), the other every partition the
// process owns (walkAll, as touchProc): after every step each claim's
// share, counts and mode and each partition's lag line must be the same
// floating-point numbers, and so must everything measured at the end.
func TestLedgerTouchPartsMatchesWalk(t *testing.T) {
	for seed := range uint64(60) {
		runTwinLedgers(t, seed, 17, [2]string{"refreshing what a change reaches", "refreshing all it owns"}, func(i int, l *ledger) {
			l.walkAll = i == 1
			// The fuzz ledgers are small: keep their memos at every drain.
			l.memoMin = 0
		}, nil)
	}
}

// runTwinLedgers drives two random ledgers of one seed in lockstep, set
// apart by setup (named by names), and fails at the first step after
// which their partitions' lines, owners or backlogs differ, or if their
// measures differ at the end. after, if not nil, sees both after every
// step.
func runTwinLedgers(t *testing.T, seed, stream uint64, names [2]string, setup func(i int, l *ledger), after func(fs [2]*ledgerFuzz)) {
	t.Helper()
	var fs [2]*ledgerFuzz
	for i := range fs {
		fs[i] = newLedgerFuzz(rand.New(rand.NewPCG(seed, stream)))
		setup(i, fs[i].l)
	}
	for step := range 300 {
		var state [2]string
		for i, f := range fs {
			if f.rng.IntN(3) > 0 {
				f.now += time.Duration(f.rng.IntN(500)) * time.Millisecond
			}
			f.change()
			state[i] = fuzzState(f.l)
		}
		if state[0] != state[1] {
			t.Fatalf("seed %d step %d: %s left the ledger\n%s\n%s\n%s", seed, step, names[0], state[0], names[1], state[1])
		}
		if after != nil {
			after(fs)
		}
	}
	if a, b := ledgerMeasures(fs[0].l), ledgerMeasures(fs[1].l); a != b {
		t.Fatalf("seed %d: %s measured\n%s\n%s\n%s", seed, names[0], a, names[1], b)
	}
}

// fuzzState is what the twin ledgers must agree on after every step.
func fuzzState(l *ledger) string {
	var state string
	for i := range l.parts {
		p := l.part(i)
		state += fmt.Sprintf("%s lag %v+%v·(t-%v) since %v driver %d;", p.name, p.lag, p.slope, p.lagT, p.since, p.driverProc)
		for _, o := range p.owners {
			state += fmt.Sprintf(" %d alloc %v/%v mode %d at anchor %v %v", o.proc, o.alloc, o.alloc0, o.mode0, o.processed0, o.behind0)
		}
		state += "\n"
	}
	for q := range fuzzProcs {
		state += fmt.Sprintf("backlog %d %v processing %d\n", q, l.Backlog(q), l.procs[q].processingCount)
	}
	return state
}

// fuzzProcs processes and fuzzParts partitions make the random ledgers of
// the property tests: small, so that owners overlap and change often.
const fuzzProcs, fuzzParts = 4, 12

// ledgerFuzz is a ledger of fuzzProcs running members of random capacity
// and fuzzParts partitions of random rates, driven by random changes.
type ledgerFuzz struct {
	l   *ledger
	now time.Duration
	rng *rand.Rand
	// inflight are commit requests sent and not answered yet, each with
	// what the slow oracle counted of every claim when it was built;
	// committed is what the oracle's commits accepted, by claim serial.
	inflight  []fuzzCommit
	committed map[int]float64
	// answered are the requests answered and done with (accepted
	// whole), rejected those whose answer goes on to the client with
	// the request.
	answered, rejected []fuzzCommit
}

type fuzzCommit struct {
	proc   int
	pos    Positions
	counts map[int]float64 // by claim serial
	// tps is a copy of the partitions the request was built with.
	tps []kafka.TopicPartition
}

func newLedgerFuzz(rng *rand.Rand) *ledgerFuzz {
	f := &ledgerFuzz{rng: rng, committed: map[int]float64{}}
	f.l = newLedger(func() time.Duration { return f.now }, 2*time.Second, false)
	for i := range fuzzProcs {
		f.l.addProcess(fmt.Sprintf("m%d", i), 50+float64(rng.IntN(200)))
		f.l.SetMember(i, 1)
		f.l.SetProcess(i, true, false, false)
	}
	for p := range int32(fuzzParts) {
		f.l.addPartition(kafka.TopicPartition{Topic: "t", Partition: p}, float64(rng.IntN(40)), nil, true)
	}
	return f
}

// tps picks about a third of the partitions.
func (f *ledgerFuzz) tps() []kafka.TopicPartition {
	var out []kafka.TopicPartition
	for p := range int32(fuzzParts) {
		if f.rng.IntN(3) == 0 {
			out = append(out, kafka.TopicPartition{Topic: "t", Partition: p})
		}
	}
	return out
}

// change makes one random change to a random process (or none).
func (f *ledgerFuzz) change() {
	l, rng := f.l, f.rng
	proc := rng.IntN(fuzzProcs)
	switch rng.IntN(11) {
	case 0, 1:
		l.Assign(proc, f.tps())
	case 2:
		l.StartRevoke(proc, f.tps())
	case 3:
		l.Release(proc, f.tps(), rng.IntN(2) == 0, rng.IntN(2) == 0)
	case 4:
		l.SetProcess(proc, rng.IntN(5) > 0, rng.IntN(4) == 0, rng.IntN(4) == 0)
	case 5:
		pos := l.Positions(proc)
		for _, idx := range l.procs[proc].owned {
			p := l.part(idx)
			i := ownerIndex(p, proc)
			if l.procs[proc].member != 0 {
				v, _ := l.claimAt(p, i, f.now)
				f.committed[p.owners[i].serial] = max(f.committed[p.owners[i].serial], v)
			}
		}
		l.CommitPositions(proc, pos, nil)
		l.Answered(proc, pos)
	case 6:
		l.SetMember(proc, []int{-1, 1}[rng.IntN(2)])
	case 7:
		l.HeldBatch(proc, f.tps(), time.Duration(rng.IntN(300))*time.Millisecond)
	case 8:
		// A commit request: the oracle counts each claim now, by
		// walking the partitions.
		c := fuzzCommit{proc: proc, pos: l.Positions(proc), counts: map[int]float64{}}
		c.tps = slices.Clone(c.pos.tps)
		for _, idx := range l.procs[proc].owned {
			p := l.part(idx)
			i := ownerIndex(p, proc)
			c.counts[p.owners[i].serial], _ = l.claimAt(p, i, f.now)
		}
		f.inflight = append(f.inflight, c)
	case 9:
		// The answer to a request in flight: accepted whole or in part.
		if len(f.inflight) == 0 {
			return
		}
		k := rng.IntN(len(f.inflight))
		c := f.inflight[k]
		f.inflight = slices.Delete(f.inflight, k, k+1)
		var accept func(kafka.TopicPartition) bool
		if rng.IntN(2) == 0 {
			accept = func(tp kafka.TopicPartition) bool { return tp.Partition%2 == 0 }
		}
		if l.procs[c.proc].member != 0 { // as CommitPositions: only a fenced member (no ids) fails
			for j, idx := range c.pos.idxs {
				if accept != nil && !accept(c.pos.tps[j]) {
					continue
				}
				if i := ownerIndex(l.part(idx), c.proc); i >= 0 {
					if v, ok := c.counts[l.part(idx).owners[i].serial]; ok {
						s := l.part(idx).owners[i].serial
						f.committed[s] = max(f.committed[s], v)
					}
				}
			}
		}
		l.CommitPositions(c.proc, c.pos, accept)
		if accept == nil {
			l.Answered(c.proc, c.pos)
			f.answered = append(f.answered, c)
		} else {
			f.rejected = append(f.rejected, c)
		}
	}
}

// checkCommitted compares every claim's committed count with the
// oracle's, exactly. The ledger works a request's counts out only when
// needed, from the partition's anchor; the oracle counted them when the
// request was built. An immediate Commit the oracle sees as a request
// answered at once.
func (f *ledgerFuzz) checkCommitted(t *testing.T, seed uint64, step int) {
	for idx := range f.l.parts {
		p := f.l.part(idx)
		for i := range p.owners {
			o := &p.owners[i]
			if got, want := f.l.committedOf(p, o), f.committed[o.serial]; got != want {
				t.Fatalf("seed %d step %d: partition %d claim %d committed %v, oracle %v", seed, step, idx, o.serial, got, want)
			}
		}
	}
}

// TestMergeDemands checks the in-place merge of two demand lists against
// sorting them together: demands are drawn from few needs, so that ties
// fall to the partition.
func TestMergeDemands(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	list := func() []memoDemand {
		out := make([]memoDemand, rng.IntN(6))
		for i := range out {
			out[i] = memoDemand{idx: rng.IntN(50), need: float64(rng.IntN(3))}
		}
		slices.SortFunc(out, byNeed)
		return out
	}
	for range 500 {
		a, b := list(), list()
		want := slices.SortedFunc(slices.Values(append(slices.Clone(a), b...)), byNeed)
		if got := mergeDemands(a, b, byNeed); !slices.Equal(got, want) {
			t.Fatalf("mergeDemands(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}

// TestRelist checks that a list of partitions built from an earlier one
// names the same partitions as looking each up: lists drawn from 40
// partitions, the new one mostly the old with a few dropped and added.
func TestRelist(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	l := newLedger(func() time.Duration { return 0 }, 0, false)
	for p := range int32(40) {
		l.addPartition(kafka.TopicPartition{Topic: "t", Partition: p}, 1, nil, true)
	}
	for range 500 {
		var was, owned []int
		for idx := range 40 {
			in := rng.IntN(2) == 0
			if in {
				was = append(was, idx)
			}
			if in != (rng.IntN(8) == 0) {
				owned = append(owned, idx)
			}
		}
		wasTPs := make([]kafka.TopicPartition, len(was))
		for k, idx := range was {
			wasTPs[k] = l.tps[idx]
		}
		got := make([]kafka.TopicPartition, len(owned))
		relist(got, owned, wasTPs, was, l.tps)
		for k, idx := range owned {
			if got[k] != l.tps[idx] {
				t.Fatalf("relist(%v from %v)[%d] = %v, want %v", owned, was, k, got[k], l.tps[idx])
			}
		}
		if len(got) != len(owned) {
			t.Fatalf("relist(%v from %v) lists %d partitions", owned, was, len(got))
		}
	}
}

// TestZeroQueueCompact holds compact to its definition on a queue of
// random instants and versions: afterwards every instant is still queued,
// in order, and yields exactly what it yielded before less the partitions
// whose every entry there was stale (a version below the partition's
// current one), which take would have handed catchUp to pass over.
func TestZeroQueueCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for round := range 50 {
		var full, compacted zeroQueue
		current := make([]int, 40)
		for range 2000 {
			part := rng.IntN(len(current))
			current[part] += 1 + rng.IntN(2)
			z := zeroAt{at: time.Duration(rng.IntN(300)), part: part, ver: current[part]}
			full.push(z)
			compacted.push(z)
		}
		for _, q := range []*zeroQueue{&full, &compacted} {
			q.rank = make([]int32, len(current))
			for i := range q.rank {
				q.rank[i] = int32(len(current) - 1 - i)
			}
		}
		before := compacted.entries
		compacted.compact(func(part int) int { return current[part] })
		if compacted.entries > len(current) || compacted.entries >= before {
			t.Fatalf("round %d: %d entries before, %d after compacting %d partitions' lines", round, before, compacted.entries, len(current))
		}
		for {
			at, ok := full.next()
			got, gotOK := compacted.next()
			if ok != gotOK || at != got {
				t.Fatalf("round %d: the compacted queue's next instant is %v (%v), want %v (%v)", round, got, gotOK, at, ok)
			}
			if !ok {
				break
			}
			want := slices.DeleteFunc(slices.Clone(full.take()), func(z zeroAt) bool { return z.ver < current[z.part] })
			if have := compacted.take(); !slices.Equal(have, want) {
				t.Fatalf("round %d, instant %v: the compacted queue yields %v, want %v", round, at, have, want)
			}
		}
	}
}

// TestLedgerZeroCompactionChangesNothing runs the random ledger twice,
// its zero-lag queue compacted at every push and never: the two must
// agree at every step and in every measure, since compact drops only
// entries catchUp would pass over.
func TestLedgerZeroCompactionChangesNothing(t *testing.T) {
	dropped := 0 // steps at which the compacted queue held fewer entries
	for seed := range uint64(60) {
		runTwinLedgers(t, seed, 31, [2]string{"compacting at every push", "never compacting"}, func(i int, l *ledger) {
			l.zeroSlack = math.MaxInt / 2
			if i == 0 {
				l.zeroSlack = -2 * fuzzParts // compact whenever anything is queued
			}
		}, func(fs [2]*ledgerFuzz) {
			if fs[0].l.zeros.entries < fs[1].l.zeros.entries {
				dropped++
			}
		})
	}
	if dropped == 0 {
		t.Fatal("compacting never dropped an entry: the test shows nothing")
	}
}
