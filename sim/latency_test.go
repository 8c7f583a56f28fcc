package sim_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

// TestLatencyClosedForm is the exactness case of the latency model: one
// partition produced at r records/s, processed by a member of capacity
// C > r, goes dark for G seconds (here: its owner is paused) and is then
// drained. Over a window of T seconds that ends with no lag:
//
//   - every record is processed, N = r·T;
//   - the backlog r·G drains at C−r, for D = r·G/(C−r) seconds, during
//     which records leave at C: M = C·D = r·G·C/(C−r) of them, their
//     latency falling linearly from G (the record produced as the gap
//     began) to 0, so uniformly distributed over [0, G];
//   - the other N−M records leave as they are produced, at latency 0.
//
// So with f = M/N the q-quantile is 0 for q ≤ 1−f and G·(q−(1−f))/f
// above, the maximum is G, and the largest lag in time is G too.
func TestLatencyClosedForm(t *testing.T) {
	for _, c := range []struct{ r, capacity, gap float64 }{
		{100, 1000, 3}, {100, 150, 2}, {500, 1000, 0.5}, {1000, 1100, 4},
	} {
		t.Run(fmt.Sprintf("r=%v,C=%v,G=%v", c.r, c.capacity, c.gap), func(t *testing.T) {
			const horizon = 100.0
			got := replay(t, []sim.TopicSpec{{Name: "t", Partitions: 1, Rate: c.r}}, map[string]float64{"a": c.capacity}, 0, horizon,
				[]step{assign(0, "a"), pause(10, "a", true), pause(10+c.gap, "a", false)}).Metrics
			n := c.r * horizon
			m := c.r * c.gap * c.capacity / (c.capacity - c.r)
			f := m / n
			quantile := func(q float64) float64 {
				if q <= 1-f {
					return 0
				}
				return c.gap * (q - (1 - f)) / f
			}
			for _, w := range []struct {
				name string
				want float64
			}{
				{"latency_p50_seconds", quantile(0.5)},
				{"latency_p99_seconds", quantile(0.99)},
				{"latency_p999_seconds", quantile(0.999)},
				{"latency_max_seconds", c.gap},
				{"max_lag_seconds", c.gap},
				{"peak_partition_lag_records", c.r * c.gap},
			} {
				g, _ := got.Value(w.name)
				// The pause's end is rounded to the nanosecond.
				if math.Abs(g-w.want) > 1e-6*max(1, w.want) {
					t.Errorf("%s = %v, want %v", w.name, g, w.want)
				}
			}
		})
	}
}

// TestLedgerLatency checks the latency and lag-in-time metrics on the
// stories of TestLedger: one partition at 100 records/s, member a at 1000
// records/s unless said otherwise, a 10s horizon.
func TestLedgerLatency(t *testing.T) {
	cases := []struct {
		name        string
		rateA       float64
		windowStart float64
		steps       []step
		want        map[string]float64
	}{{
		// Unowned 0-4s (lag 400), then drained at 50/s: 900 records leave
		// over 4-10s with latency lag/100 falling from 4 to 1, and 100 are
		// still waiting at the horizon, aged 0 to 1. Of the 1000, the
		// 500th has latency x with 100 + 300·(x−1) = 500: x = 7/3; the
		// 990th: 1 + 890/300.
		name: "slow drain", rateA: 150,
		steps: []step{assign(4, "a")},
		want: map[string]float64{"latency_p50_seconds": 7.0 / 3, "latency_p99_seconds": 1 + 890.0/300,
			"latency_max_seconds": 4, "max_lag_seconds": 4, "peak_partition_lag_records": 400},
	}, {
		// Paused 2-7s with the window from 5s: the record produced at 2s
		// leaves at 7s, inside the window, 5s late. The records leaving in
		// the window are the 300 waiting at 5s and the 500 produced after:
		// 800. The backlog of 500 at 7s drains at 900/s in 5/9 s, during
		// which 1000·5/9 = 555.6 records leave, uniform over [0, 5]; the
		// rest leave at 0. With f = 555.6/800, p50 = 5·(0.5−(1−f))/f = 1.4.
		name: "window", windowStart: 5,
		steps: []step{assign(0, "a"), pause(2, "a", true), pause(7, "a", false)},
		want: map[string]float64{"latency_max_seconds": 5, "max_lag_seconds": 5, "peak_partition_lag_records": 500,
			"latency_p50_seconds": 5 * (0.5 - (1 - 5000.0/9/800)) / (5000.0 / 9 / 800)},
	}, {
		// A partition moved from a to b at 100 records/s once: the moved
		// load is its rate. a revokes at 1s and b takes it at 1.5s: a
		// 0.5s gap, drained at 900/s by b.
		name:  "moved load",
		steps: []step{assign(0, "a"), revoking(1, "a"), revoked(1.5, "a"), assign(1.5, "b")},
		want:  map[string]float64{"moved_load_records_per_second": 100, "latency_max_seconds": 0.5, "max_lag_seconds": 0.5},
	}, {
		// Nobody ever processes the partition: nothing leaves, and the
		// 1000 records waiting at the horizon are aged 0 to 10s evenly.
		name:  "never processed",
		steps: nil,
		want: map[string]float64{"latency_p50_seconds": 5, "latency_p99_seconds": 9.9, "latency_max_seconds": 10,
			"max_lag_seconds": 10, "peak_partition_lag_records": 1000},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := story(t, c.rateA, c.windowStart, c.steps)
			for name, want := range c.want {
				g, ok := got.Value(name)
				if !ok {
					t.Fatalf("no metric %s", name)
				}
				if math.Abs(g-want) > 1e-6*max(1, want) {
					t.Errorf("%s = %v, want %v", name, g, want)
				}
			}
		})
	}
}
