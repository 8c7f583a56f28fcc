package sim_test

import (
	"math"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/sim"
)

// TestMaxMinShare checks that a member's capacity goes where the demand
// is. Member a processes 1000 records/s; t-0 produces 100/s and u-0
// 300/s; nobody owns them for 2s (lags 200 and 600), then a takes both.
//
// While both have lag they share equally, 500/s each: t-0 drains at
// 400/s and runs out at 2.5s, when u-0's lag is 600 − 200·0.5 = 500. From
// then on t-0 needs only its 100/s and u-0 gets 900/s, draining at 600/s:
// the total lag is above 8 (1% of its peak of 800) until
// 2.5 + (500−8)/600 = 3.32s, the lag_recovery. Shared equally for good,
// u-0 would drain at 200/s and recover only at 2 + (600−8)/200 = 4.96s.
//
// u-0's records: 500/s leave over 2-2.5s with latency lag/300 falling
// from 2 to 5/3, then 900/s over 2.5-3.33s falling from 5/3 to 0.
func TestMaxMinShare(t *testing.T) {
	both := func(f *feed) {
		f.add(sim.Observation{At: s(2), Kind: sim.ObservedAssigned, Member: "a", Partitions: []kafka.TopicPartition{{Topic: "t"}, {Topic: "u"}}})
		f.add(sim.Observation{At: s(2), Kind: sim.ObservedCallbackDone, Member: "a"})
	}
	got := replay(t, []sim.TopicSpec{{Name: "t", Partitions: 1, Rate: 100}, {Name: "u", Partitions: 1, Rate: 300}}, map[string]float64{"a": 1000}, 0, 10, []step{both}).Metrics
	for name, want := range map[string]float64{
		"lag_recovery_seconds":       3.32,
		"peak_lag_records":           800,
		"peak_partition_lag_records": 600,
		"latency_max_seconds":        2,
		"max_lag_seconds":            2,
	} {
		if g, _ := got.Value(name); math.Abs(g-want) > 1e-6 {
			t.Errorf("%s = %v, want %v", name, g, want)
		}
	}
}
