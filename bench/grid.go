package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// The scaling grid: every protocol at every pair of group size and
// partition count, a decade apart, from a small group to the sizes of
// issue 18 (10,000 members, 1M partitions).
var (
	gridMembers    = []int{10, 100, 1_000, 10_000}
	gridPartitions = []int{1_000, 10_000, 100_000, 1_000_000}
)

// The rolling restart of every scaling run. The number of bounces is fixed
// (not the whole group, as in bench/rolling-restart-1000x*.yaml) so that
// every point has about the same number of rebalances and what grows from
// point to point is the cost of each; 10 bounces 2s apart, each down for
// 1s, as in the 10,000-member file.
const (
	Restarts        = 10
	restartAt       = 60 * time.Second
	restartInterval = 2 * time.Second
	restartDown     = 1 * time.Second
	// settle is the time left after the last bounce for the group to
	// converge: measured at the grid's corners and at 1,000 × 100k, the
	// consumer protocol takes 23–27s, the classic ones at most 6.2s.
	settle = 60 * time.Second
)

// memberRate is the records per second each member's share of the topic
// produces: 5% of the default processing_rate (2,000 records/s), so that
// every group keeps up as the 1,000-member files of bench/ do (100,000
// records/s over 1,000 members), and a partition's rate is
// memberRate × members / partitions.
const memberRate = 100

// Point is one benchmark of the scaling table.
type Point struct {
	Protocol   string
	Members    int
	Partitions int
}

// Name is the point's sub-benchmark name under BenchmarkScaling, the
// key=value form that ParseResults reads back.
func (p Point) Name() string {
	return fmt.Sprintf("protocol=%s/members=%d/partitions=%d", p.Protocol, p.Members, p.Partitions)
}

// Grid lists every point, protocol by protocol in their canonical order,
// then by members and partitions.
func Grid() []Point {
	var pts []Point
	for _, proto := range sim.Protocols() {
		for _, m := range gridMembers {
			for _, n := range gridPartitions {
				pts = append(pts, Point{proto, m, n})
			}
		}
	}
	return pts
}

// Source is the scenario file of a scaling run: members dynamic consumers
// sharing one topic of partitions partitions, the first Restarts of them
// (all, in a smaller group) restarted one by one.
func Source(members, partitions int) []byte {
	restarted := make([]string, min(Restarts, members))
	for i := range restarted {
		restarted[i] = "c" + strconv.Itoa(i+1)
	}
	last := restartAt + time.Duration(len(restarted)-1)*restartInterval + restartDown
	rate := strconv.FormatFloat(float64(memberRate*members)/float64(partitions), 'f', -1, 64)
	var b strings.Builder
	fmt.Fprintf(&b, "name: scaling-%dx%d\n", members, partitions)
	fmt.Fprintf(&b, "description: >-\n  A point of the scaling table (package bench): %d dynamic consumers on one\n"+
		"  topic of %d partitions, of which %d are restarted one by one, %s apart,\n"+
		"  each down for %s, with a graceful close.\n", members, partitions, len(restarted), restartInterval, restartDown)
	fmt.Fprintf(&b, "duration: %s\n", last+settle)
	fmt.Fprintf(&b, "topics:\n  - {name: events, partitions: %d, rate: %s}\n", partitions, rate)
	b.WriteString("network:\n  latency: 2ms\n")
	fmt.Fprintf(&b, "members:\n  - {count: %d, id: \"c{i}\"}\n", members)
	fmt.Fprintf(&b, "events:\n  - {at: %s, rolling_restart: {members: [%s], interval: %s, down: %s, graceful: true}}\n",
		restartAt, strings.Join(restarted, ", "), restartInterval, restartDown)
	return []byte(b.String())
}
