package bench

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// TestGrid: every protocol at every size, 3 × 4 × 4 points, each with a
// name of its own.
func TestGrid(t *testing.T) {
	pts := Grid()
	if len(pts) != 48 {
		t.Errorf("%d points, want 3 protocols × 4 group sizes × 4 partition counts = 48", len(pts))
	}
	names := map[string]bool{}
	for _, p := range pts {
		names[p.Name()] = true
	}
	if len(names) != len(pts) {
		t.Errorf("%d names for %d points", len(names), len(pts))
	}
	if got := (Point{"eager", 10, 1000}).Name(); got != "protocol=eager/members=10/partitions=1000" {
		t.Errorf("name %q", got)
	}
	// The table reads every name back as go test prints it, with and
	// without the GOMAXPROCS suffix.
	for _, p := range pts {
		for _, printed := range []string{benchmarkName + "/" + p.Name(), benchmarkName + "/" + p.Name() + "-2"} {
			if got, err := parseName(field{printed, 1}); err != nil || got != p {
				t.Errorf("%s read back as %+v, %v", printed, got, err)
			}
		}
	}
}

// TestSources: every size's scenario loads, and is the rolling restart
// the table describes.
func TestSources(t *testing.T) {
	for _, m := range gridMembers {
		for _, n := range gridPartitions {
			f, err := scenarios.Parse("scaling.yaml", Source(m, n))
			if err != nil {
				t.Fatalf("%d × %d: %v", m, n, err)
			}
			sc := f.Scenario
			if len(sc.Members) != m || len(sc.Topics) != 1 || sc.Topics[0].Partitions != int32(n) {
				t.Fatalf("%d × %d: %d members, topics %+v", m, n, len(sc.Members), sc.Topics)
			}
			// Each member's share produces memberRate records/s.
			if total := sc.Topics[0].Rate * float64(n); math.Abs(total-float64(memberRate*m)) > 1e-9*total {
				t.Errorf("%d × %d: the topic produces %g records/s, want %d", m, n, total, memberRate*m)
			}
			if len(sc.Events) != 1 || sc.Events[0].Kind != sim.EventRollingRestart {
				t.Fatalf("%d × %d: events %+v, want one rolling restart", m, n, sc.Events)
			}
			ev := sc.Events[0]
			var want []string
			for i := 1; i <= min(Restarts, m); i++ {
				want = append(want, fmt.Sprintf("c%d", i))
			}
			if !slices.Equal(ev.Members, want) || ev.At != restartAt || ev.Interval != restartInterval || ev.For != restartDown || !ev.Graceful {
				t.Errorf("%d × %d: rolling restart %+v, want %v from %v every %v, down %v, graceful", m, n, ev, want, restartAt, restartInterval, restartDown)
			}
			// 60s, then 10 bounces 2s apart, the last down until 79s,
			// then a minute to settle.
			if want := 139 * time.Second; sc.Duration != want {
				t.Errorf("%d × %d: duration %v, want %v", m, n, sc.Duration, want)
			}
		}
	}
}

// TestSmallestPoint runs the grid's cheapest point (10 members, 1,000
// partitions; tens of ms) under every protocol, as BenchmarkScaling runs
// each: the group converges without findings, and its rebalances come
// from the bounces: at most two each (one as the member leaves, one as it
// rejoins), and at least one in all. Measured: eager 8 (a rebalance
// still running takes in the next bounces' leaves and joins),
// cooperative 12, nextgen 20 (two epoch bumps a bounce).
func TestSmallestPoint(t *testing.T) {
	f, err := scenarios.Parse("scaling.yaml", Source(10, 1000))
	if err != nil {
		t.Fatal(err)
	}
	for _, proto := range sim.Protocols() {
		r, err := runPoint(f, Point{proto, 10, 1000})
		if err != nil {
			t.Fatal(err)
		}
		if err := healthy(r); err != nil {
			t.Errorf("%s: %v", proto, err)
		}
		if r.Metrics.Rebalances < 1 || r.Metrics.Rebalances > 2*Restarts {
			t.Errorf("%s: %d rebalances, want 1 to %d", proto, r.Metrics.Rebalances, 2*Restarts)
		}
	}
}
