package sim

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestKernelOrdersByTimeThenSequence(t *testing.T) {
	k := newKernel()
	var got []string
	k.At(2*time.Second, func() { got = append(got, "b") })
	k.At(1*time.Second, func() { got = append(got, "a") })
	k.At(2*time.Second, func() { got = append(got, "c") })
	cancel := k.At(1500*time.Millisecond, func() { got = append(got, "cancelled") })
	k.Cancel(cancel)
	k.At(3*time.Second, func() {
		got = append(got, "d")
		// Scheduling in the past runs now, after what is already due.
		k.At(0, func() { got = append(got, "e") })
	})
	k.RunUntil(10 * time.Second)
	if want := []string{"a", "b", "c", "d", "e"}; !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	if k.Now() != 10*time.Second {
		t.Fatalf("clock = %v, want 10s", k.Now())
	}
	if k.Executed() != 5 {
		t.Fatalf("executed = %d, want 5", k.Executed())
	}
}

// TestEventQueueMatchesSortedOrder checks the heap against a sort: over
// random interleavings of pushes and pops, with many equal times, every pop
// returns the least pending event in (at, key) order.
func TestEventQueueMatchesSortedOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 200; round++ {
		var q eventQueue
		var pending []event
		for step := 0; step < 500; step++ {
			if len(pending) == 0 || r.IntN(3) > 0 {
				// Keys are sequence numbers or, with shuffled ties,
				// random draws; random ones cover both orders.
				e := event{at: time.Duration(r.IntN(20)), key: r.Uint64()}
				q.push(e)
				pending = append(pending, e)
				continue
			}
			got := q.pop()
			slices.SortFunc(pending, func(a, b event) int {
				if a.before(&b) {
					return -1
				}
				return 1
			})
			want := pending[0]
			pending = pending[1:]
			if got.at != want.at || got.key != want.key {
				t.Fatalf("round %d step %d: popped (%v,%d), want (%v,%d)", round, step, got.at, got.key, want.at, want.key)
			}
		}
		if q.len() != len(pending) {
			t.Fatalf("round %d: queue holds %d events, want %d", round, q.len(), len(pending))
		}
	}
}

// TestKernelRunsEventsInOrder drives all the kernel's queues and its delay
// lanes at once: events at a constant delay (in order), at small random
// delays (out of order), ahead and far ahead at random and at a few fixed
// delays, some cancelled, each scheduling more. Since a new
// event is never before the running one, the events must run in strictly
// increasing (time, sequence) order, and every event not cancelled must
// run.
func TestKernelRunsEventsInOrder(t *testing.T) {
	type ran struct {
		at time.Duration
		id eventID
	}
	r := rand.New(rand.NewPCG(5, 6))
	k := newKernel()
	var got []ran
	pending := map[eventID]bool{}
	var schedule func(depth int)
	schedule = func(depth int) {
		var d time.Duration
		switch r.IntN(9) {
		case 0, 1:
			d = time.Millisecond
		case 8:
			// At once, behind messages still in flight: the atNow
			// queue's events.
			d = 0
		case 2:
			d = time.Duration(r.IntN(int(2 * time.Millisecond)))
		case 3:
			d = time.Duration(r.IntN(int(5 * time.Second)))
		case 4:
			d = time.Duration(r.IntN(int(3 * time.Minute)))
		default:
			// Periodic timers: a few fixed delays, more than there
			// are lanes, so that lanes fill, drain and change hands.
			d = []time.Duration{time.Second, 3 * time.Second, 10 * time.Second, 30 * time.Second, 45 * time.Second, time.Minute}[r.IntN(6)]
		}
		var id eventID
		id = k.After(d, func() {
			got = append(got, ran{k.Now(), id})
			delete(pending, id)
			if depth < 6 {
				for i := r.IntN(3); i > 0; i-- {
					schedule(depth + 1)
				}
			}
		})
		pending[id] = true
		if r.IntN(10) == 0 {
			k.Cancel(id)
			delete(pending, id)
		}
	}
	for i := 0; i < 300; i++ {
		schedule(0)
	}
	k.RunUntil(time.Hour)
	if len(pending) != 0 {
		t.Fatalf("%d events never ran", len(pending))
	}
	if len(got) < 1000 {
		t.Fatalf("only %d events ran; the test drives too few", len(got))
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if b.at < a.at || (b.at == a.at && b.id < a.id) {
			t.Fatalf("event %d (at %v) ran after event %d (at %v)", b.id, b.at, a.id, a.at)
		}
	}
}

func TestKernelRunUntilStopsAtHorizon(t *testing.T) {
	k := newKernel()
	ran := false
	k.At(5*time.Second, func() { ran = true })
	k.RunUntil(4 * time.Second)
	if ran || k.Now() != 4*time.Second {
		t.Fatalf("ran=%v now=%v; want an event after the horizon left alone", ran, k.Now())
	}
}

func TestKernelShuffleTiesIsSeededPermutation(t *testing.T) {
	order := func(seed uint64) []int {
		k := newKernel()
		r := newStreams(seed).Stream("kernel/ties")
		k.ShuffleTies(r.Uint64)
		var got []int
		for i := 0; i < 20; i++ {
			k.At(time.Second, func() { got = append(got, i) })
		}
		k.RunUntil(time.Second)
		return got
	}
	a, b, c := order(1), order(1), order(2)
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different tie orders")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same tie order")
	}
	sorted := slices.Sorted(slices.Values(a))
	for i, v := range sorted {
		if v != i {
			t.Fatalf("tie shuffling lost or duplicated events: %v", a)
		}
	}
}

func TestStreamsAreNamedAndReproducible(t *testing.T) {
	s := newStreams(7)
	a, b, c := s.Stream("net/c1"), s.Stream("net/c1"), s.Stream("net/c2")
	for i := 0; i < 10; i++ {
		x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
		if x != y {
			t.Fatal("one name, two sequences")
		}
		if x == z {
			t.Fatal("two names, one sequence")
		}
	}
}

func TestSamplerDistributions(t *testing.T) {
	rng := newStreams(1).Stream("test")
	med, p99 := 2*time.Millisecond, 20*time.Millisecond
	logn := newSampler(Distribution{Kind: DistLogNormal, Median: med, P99: p99}, rng)
	n := 20000
	xs := make([]time.Duration, n)
	for i := range xs {
		xs[i] = logn.Sample()
	}
	slices.Sort(xs)
	gotMed, gotP99 := xs[n/2], xs[n*99/100]
	if gotMed < med*9/10 || gotMed > med*11/10 {
		t.Errorf("lognormal median = %v, want about %v", gotMed, med)
	}
	if gotP99 < p99*8/10 || gotP99 > p99*12/10 {
		t.Errorf("lognormal p99 = %v, want about %v", gotP99, p99)
	}
	uni := newSampler(Distribution{Kind: DistUniform, Min: time.Millisecond, Max: 3 * time.Millisecond}, rng)
	for i := 0; i < 1000; i++ {
		if d := uni.Sample(); d < time.Millisecond || d > 3*time.Millisecond {
			t.Fatalf("uniform sample %v outside [1ms, 3ms]", d)
		}
	}
	if d := newSampler(Distribution{Kind: DistConstant, Value: 5 * time.Millisecond}, rng).Sample(); d != 5*time.Millisecond {
		t.Fatalf("constant sample = %v", d)
	}
}

// TestSamplerFixed checks that a sampler that calls itself fixed draws its
// value every time and leaves its stream alone, so that a caller may skip
// it, and that the others do not call themselves fixed.
func TestSamplerFixed(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		dist  Distribution
		fixed bool
		value time.Duration
	}{
		{Distribution{Kind: DistConstant, Value: 5 * ms}, true, 5 * ms},
		{Distribution{Kind: DistUniform, Min: 2 * ms, Max: 2 * ms}, true, 2 * ms},
		{Distribution{Kind: DistUniform, Min: 2 * ms, Max: 3 * ms}, false, 0},
		{Distribution{Kind: DistLogNormal, Median: 4 * ms, P99: 4 * ms}, true, 4 * ms},
		{Distribution{Kind: DistLogNormal, Median: 4 * ms, P99: 40 * ms}, false, 0},
	} {
		s := newSampler(tc.dist, newStreams(1).Stream("s"))
		value, fixed := s.Fixed()
		if fixed != tc.fixed || (fixed && value != tc.value) {
			t.Errorf("%+v: Fixed() = %v, %v; want %v, %v", tc.dist, value, fixed, tc.value, tc.fixed)
			continue
		}
		if !fixed {
			continue
		}
		for range 10 {
			if d := s.Sample(); d != value {
				t.Errorf("%+v: fixed at %v but drew %v", tc.dist, value, d)
			}
		}
		if s.rng.Uint64() != newStreams(1).Stream("s").Uint64() {
			t.Errorf("%+v: a fixed sampler drew from its stream", tc.dist)
		}
	}
}

// The benchmarks below run the same workload — a pool of self-rescheduling
// events at random future times, as timers and messages behave in a run —
// through the kernel and through a bare container/heap loop, so that the
// kernel's cost per event can be read as a ratio.

// benchPending are the queue sizes measured: 1,024 pending events, and
// 4,096, about what a 500-member group keeps queued (a heartbeat timer, a
// request timeout, a session timer and a metadata refresh per member, plus
// messages in flight).
var benchPending = []int{1024, 4096}

func BenchmarkKernelEvent(b *testing.B) {
	for _, n := range benchPending {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchmarkKernelEvent(b, n) })
	}
}

func benchmarkKernelEvent(b *testing.B, pending int) {
	k := newKernel()
	r := rand.New(rand.NewPCG(1, 2))
	var fire func()
	left := b.N
	fire = func() {
		if left > 0 {
			left--
			k.After(time.Duration(r.Int64N(int64(time.Second))), fire)
		}
	}
	for i := 0; i < pending; i++ {
		k.After(time.Duration(r.Int64N(int64(time.Second))), fire)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for k.Step(1 << 62) {
	}
}

type bareEvent struct {
	at  time.Duration
	seq uint64
	fn  func()
}

type bareHeap []bareEvent

func (h bareHeap) Len() int { return len(h) }
func (h bareHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h bareHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *bareHeap) Push(x any)   { *h = append(*h, x.(bareEvent)) }
func (h *bareHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func BenchmarkBareHeapEvent(b *testing.B) {
	for _, n := range benchPending {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchmarkBareHeapEvent(b, n) })
	}
}

func benchmarkBareHeapEvent(b *testing.B, pending int) {
	h := &bareHeap{}
	r := rand.New(rand.NewPCG(1, 2))
	var now time.Duration
	var seq uint64
	left := b.N
	var fire func()
	push := func(fn func()) {
		seq++
		heap.Push(h, bareEvent{at: now + time.Duration(r.Int64N(int64(time.Second))), seq: seq, fn: fn})
	}
	fire = func() {
		if left > 0 {
			left--
			push(fire)
		}
	}
	for i := 0; i < pending; i++ {
		push(fire)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for h.Len() > 0 {
		e := heap.Pop(h).(bareEvent)
		now = e.at
		e.fn()
	}
}
