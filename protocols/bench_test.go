package protocols_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/sim"
)

// bigRollingRestart is a group of members consumers on partitions
// partitions restarted one by one, 2s apart, each down for 1s.
func bigRollingRestart(members int, partitions int32) *sim.Scenario {
	sc := &sim.Scenario{Name: "big-rolling-restart", Seed: 1,
		Topics:  []sim.TopicSpec{{Name: "events", Partitions: partitions, Rate: 10}},
		Network: sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: 2 * time.Millisecond}},
		Group:   sim.DefaultGroupConfig(),
	}
	var ids []string
	for i := 1; i <= members; i++ {
		id := fmt.Sprintf("c%d", i)
		ids = append(ids, id)
		sc.Members = append(sc.Members, sim.MemberSpec{ID: id})
	}
	interval := 2 * time.Second
	sc.Events = []sim.Event{{At: time.Minute, Kind: sim.EventRollingRestart, Members: ids, Interval: interval, For: time.Second, Graceful: true}}
	sc.Duration = time.Minute + time.Duration(members)*interval + 2*time.Minute
	return sc
}

func benchmarkRollingRestart(b *testing.B, protocol string, members int, partitions int32) {
	sc := bigRollingRestart(members, partitions)
	b.ReportAllocs()
	var events uint64
	for i := 0; i < b.N; i++ {
		r, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: protocol})
		if err != nil {
			b.Fatal(err)
		}
		events = r.Events
	}
	b.ReportMetric(float64(events), "events/run")
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkRollingRestart1000x10000Eager(b *testing.B) {
	benchmarkRollingRestart(b, sim.ProtocolEager, 1000, 10000)
}

func BenchmarkRollingRestart1000x10000Cooperative(b *testing.B) {
	benchmarkRollingRestart(b, sim.ProtocolCooperative, 1000, 10000)
}

func BenchmarkScaleOutLab(b *testing.B) {
	sc := withStart(classicGroup(4, 2*time.Minute), "c4", 30*time.Second)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: sim.ProtocolEager, Timeline: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRollingRestart300x3000Eager(b *testing.B) {
	benchmarkRollingRestart(b, sim.ProtocolEager, 300, 3000)
}
