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

// windowsOf is the latency of each window [bounds[i], bounds[i+1]].
func windowsOf(pieces pieceChunks, bounds []float64) []LatencyStats {
	return latencyWindows(pieces, bounds)[0]
}

// pausedOnce replays one partition produced at r records/s and owned from
// 0 by a member of capacity c, paused at 10s for gap seconds (still
// paused at the horizon if that comes first); it returns the ledger with the run's pieces.
func pausedOnce(t *testing.T, r, c, gap, horizon float64) *ledger {
	t.Helper()
	at := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	tp := []kafka.TopicPartition{{Topic: "t", Partition: 0}}
	sc := &Scenario{Name: "paused", Seed: 1, Duration: at(horizon),
		Topics:  []TopicSpec{{Name: "t", Partitions: 1, Rate: r}},
		Members: []MemberSpec{{ID: "a", Settings: ConsumerSettings{ProcessingRate: &c}}}}
	rep, err := NewReplay(sc, ProtocolCooperative)
	if err != nil {
		t.Fatal(err)
	}
	obs := []Observation{
		{Kind: ObservedCoordinator, Stable: true},
		{Kind: ObservedGeneration, Generation: 1},
		{Kind: ObservedStart, Member: "a"},
		{Kind: ObservedMembers, Member: "a", Members: 1},
		{Kind: ObservedAssigned, Member: "a", Partitions: tp},
		{Kind: ObservedCallbackDone, Member: "a"},
		{At: at(10), Kind: ObservedPause, Member: "a"},
	}
	if 10+gap < horizon {
		obs = append(obs, Observation{At: at(10 + gap), Kind: ObservedResume, Member: "a"})
	}
	for _, o := range obs {
		if err := rep.Observe(o); err != nil {
			t.Fatal(err)
		}
	}
	rep.Finish()
	return rep.w.ledger
}

// TestLatencyWindowsClosedForm is the exactness case per window: one
// partition at r records/s, drained by capacity C > r, dark for G seconds
// from 10s. The backlog r·G drains at C−r, for D = r·G/(C−r) seconds, and
// the cases keep G+D ≤ 10, so the whole disturbance lies in [10, 20].
//
//   - [0, 10]: every record leaves as it is produced: r·10 records, all
//     at latency 0.
//   - [10, 20]: no lag at either end, so the records leaving are the
//     r·10 produced in it. M = C·D of them leave during the drain, their
//     latency falling linearly from G to 0: uniform over [0, G]. The rest
//     leave at latency 0. With f = M/(10·r) the q-quantile is
//     G·(q−(1−f))/f above 1−f and 0 below; the maximum is G.
//   - [20, 100]: latency 0 again.
//   - the episode [10, 100] of the disturbance: the same M over r·90
//     records, so the same form with f = M/(90·r).
func TestLatencyWindowsClosedForm(t *testing.T) {
	for _, c := range []struct{ r, capacity, gap float64 }{
		{100, 1000, 3}, {100, 150, 2}, {500, 1000, 0.5}, {1000, 2000, 4}, {10, 1000, 7},
	} {
		t.Run(fmt.Sprintf("r=%v,C=%v,G=%v", c.r, c.capacity, c.gap), func(t *testing.T) {
			l := pausedOnce(t, c.r, c.capacity, c.gap, 100)
			m := c.r * c.gap * c.capacity / (c.capacity - c.r)
			closed := func(n float64) LatencyStats {
				f := m / n
				quantile := func(q float64) float64 {
					if q <= 1-f {
						return 0
					}
					return c.gap * (q - (1 - f)) / f
				}
				return LatencyStats{Records: n, P50: quantile(0.5), P99: quantile(0.99), P999: quantile(0.999), Max: c.gap}
			}
			quiet := func(n float64) LatencyStats { return LatencyStats{Records: n} }
			steps := windowsOf(l.pieces.read(), []float64{0, 10, 20, 100})
			episode := windowsOf(l.pieces.read(), []float64{10, 100})
			for _, w := range []struct {
				name      string
				got, want LatencyStats
			}{
				{"[0,10]", steps[0], quiet(10 * c.r)},
				{"[10,20]", steps[1], closed(10 * c.r)},
				{"[20,100]", steps[2], quiet(80 * c.r)},
				{"episode [10,100]", episode[0], closed(90 * c.r)},
			} {
				g, e := w.got, w.want
				for _, v := range []struct {
					name      string
					got, want float64
				}{{"records", g.Records, e.Records}, {"p50", g.P50, e.P50}, {"p99", g.P99, e.P99}, {"p99.9", g.P999, e.P999}, {"max", g.Max, e.Max}} {
					// The pause's end is rounded to the nanosecond.
					if math.Abs(v.got-v.want) > 1e-6*max(1, v.want) {
						t.Errorf("%s %s = %v, want %v", w.name, v.name, v.got, v.want)
					}
				}
			}
		})
	}
}

// TestLatencyWindowsOracle compares the exact per-window quantiles with a
// slow, obvious oracle, on pieces and windows whose ends lie on a grid of
// whole seconds: every piece is cut into records of 1/cuts s of departures
// each, so no record straddles a window's bound; each record sits at the
// latency of its midpoint and belongs to the window its departure lies
// in; a window's records are sorted and the quantile read off by rank.
// An instant (the records waiting at the horizon) is cut by latency
// instead, and belongs to the window it starts, or the last one if it
// lies on the last bound. Moving each record to its midpoint moves it by
// at most half its latency range, so the oracle's quantile is within that
// of the exact one (a quantile moves no further than the mass it is read
// from); the maximum is read from the records' ends, the same up to
// rounding.
//
// The second shape has hundreds of pieces per window, more than
// latencySweepPieces, so the ranges are narrowed before the sweep.
func TestLatencyWindowsOracle(t *testing.T) {
	for _, shape := range []struct{ trials, most, cuts int }{{300, 8, 200}, {10, 2000, 10}} {
		testLatencyWindowsOracle(t, shape.trials, shape.most, shape.cuts)
	}
}

func testLatencyWindowsOracle(t *testing.T, trials, most, cuts int) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range trials {
		pieces := randomPieces(rng, most, func() (float64, float64) {
			t0 := float64(rng.IntN(10))
			return t0, t0 + float64(rng.IntN(5))
		})
		bounds := []float64{0}
		for bounds[len(bounds)-1] < 14 {
			bounds = append(bounds, bounds[len(bounds)-1]+float64(1+rng.IntN(4)))
		}
		got := windowsOf(logOf(pieces), bounds)

		type rec struct{ w, lo, hi, m float64 }
		n := len(bounds) - 1
		recs := make([][]rec, n)
		windowOf := func(t float64, instant bool) int {
			for i := range n {
				if t >= bounds[i] && (t < bounds[i+1] || (instant && i == n-1 && t == bounds[n])) {
					return i
				}
			}
			return -1
		}
		worst := 0.0 // half the widest record's latency range
		for _, q := range pieces {
			at := func(f float64) float64 { return q.w0 + (q.w1-q.w0)*f }
			k := cuts * int(q.t1-q.t0)
			instant := k == 0
			if instant {
				k = cuts
			}
			worst = max(worst, math.Abs(q.w1-q.w0)/float64(k)/2)
			for j := range k {
				f0, f1 := float64(j)/float64(k), float64(j+1)/float64(k)
				i := windowOf(q.t0+(q.t1-q.t0)*(f0+f1)/2, instant)
				if i < 0 {
					continue
				}
				recs[i] = append(recs[i], rec{w: at((f0 + f1) / 2), lo: at(f0), hi: at(f1), m: q.mass / float64(k)})
			}
		}
		for i, rs := range recs {
			slices.SortFunc(rs, func(a, b rec) int { return cmp.Compare(a.w, b.w) })
			total, top := 0.0, 0.0
			for _, r := range rs {
				total += r.m
				top = max(top, r.lo, r.hi)
			}
			g := got[i]
			if math.Abs(g.Records-total) > 1e-9*max(1, total) || math.Abs(g.Max-top) > 1e-12*max(1, top) {
				t.Fatalf("trial %d window %d: %v records max %v, oracle %v max %v (pieces %+v, bounds %v)", trial, i, g.Records, g.Max, total, top, pieces, bounds)
			}
			for k, q := range latencyQuantiles {
				want := rankQuantile(len(rs), func(i int) (float64, float64) { return rs[i].w, rs[i].m }, q*total)
				if v := []float64{g.P50, g.P99, g.P999}[k]; math.Abs(v-want) > worst+1e-9 {
					t.Fatalf("trial %d window %d: q%v = %v, oracle %v (pieces %+v, bounds %v)", trial, i, q, v, want, pieces, bounds)
				}
			}
		}
	}
}

// TestLatencyWindowsWholeRun checks the windows against the run-level
// metrics of the same records: one window over the whole measurement
// window gives the run's metrics exactly; the chart's steps together hold
// every record the run counts (those waiting at the horizon in the last
// step), their largest maximum is the run's, and each run-level quantile
// lies between the smallest and largest of the steps' (a quantile of a
// mixture lies between those of its parts).
func TestLatencyWindowsWholeRun(t *testing.T) {
	for _, c := range []struct {
		name                    string
		r, capacity, gap, until float64
	}{
		{"drained", 100, 1000, 3, 100},
		{"still draining at the horizon", 100, 150, 20, 40},
		{"paused at the horizon", 100, 1000, 90, 50},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := pausedOnce(t, c.r, c.capacity, c.gap, c.until)
			var m Metrics
			l.partitionMetrics(&m)
			run := LatencyStats{Records: l.latencyHist(0, c.until).total(), P50: m.LatencyP50Seconds, P99: m.LatencyP99Seconds, P999: m.LatencyP999Seconds, Max: m.LatencyMaxSeconds}
			if whole := windowsOf(l.pieces.read(), []float64{0, c.until})[0]; whole != run {
				t.Errorf("one window %+v, run %+v", whole, run)
			}
			if want := c.r * c.until; math.Abs(run.Records-want) > 1e-6*want {
				// Every record produced is counted, processed or waiting.
				t.Errorf("run counts %v records, want %v", run.Records, want)
			}
			steps := windowsOf(l.pieces.read(), latencySeriesBounds(0, c.until))
			records, top := 0.0, 0.0
			lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
			hi := [3]float64{}
			for _, st := range steps {
				records += st.Records
				top = max(top, st.Max)
				if st.Records > 0 {
					for k, v := range []float64{st.P50, st.P99, st.P999} {
						lo[k], hi[k] = min(lo[k], v), max(hi[k], v)
					}
				}
			}
			if math.Abs(records-run.Records) > 1e-9*run.Records || top != run.Max {
				t.Errorf("steps hold %v records, max %v; run %v, max %v", records, top, run.Records, run.Max)
			}
			for k, v := range []float64{run.P50, run.P99, run.P999} {
				if v < lo[k]-1e-9 || v > hi[k]+1e-9 {
					t.Errorf("run quantile %v = %v outside the steps' [%v, %v]", latencyQuantiles[k], v, lo[k], hi[k])
				}
			}
		})
	}
}
