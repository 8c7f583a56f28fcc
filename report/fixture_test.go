package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/rebalsim/rebalsim/sim"
)

// Test fixtures are synthetic sim.Result values, built here rather than by
// running the simulator: the report must be testable on its own, and a
// hand-built result pins exactly what each chart and table has to show.
// The numbers are plausible, not simulated; the series and metrics are
// derived from the hand-built timelines so that they agree with them.

// fixtureRun is a run as written by hand: timelines and the instants of
// moves and revocations. finish derives the rest.
type fixtureRun struct {
	protocol   string
	segs       []sim.Segment
	lanes      []sim.MemberSegment
	moves      []float64
	revokes    []float64
	rebalances int
	conv       []sim.Convergence
	findings   []sim.Finding
	members    []sim.MemberMetrics
}

// fixtureWorld is what the runs of one scenario share.
type fixtureWorld struct {
	name        string
	horizon     float64
	windowStart float64
	step        float64
	// rate is records/s produced to each partition; drain is how fast a
	// processing owner works off a partition's lag.
	rate, drain  float64
	partitions   []string
	disturbances []sim.Disturbance
}

func (w fixtureWorld) finish(fr fixtureRun) *sim.Result {
	r := &sim.Result{
		Scenario:       w.name,
		Protocol:       fr.protocol,
		Seed:           1,
		WindowStart:    w.windowStart,
		WindowEnd:      w.horizon,
		Convergence:    fr.conv,
		Members:        fr.members,
		Findings:       fr.findings,
		Timeline:       sortedSegments(fr.segs),
		MemberTimeline: fr.lanes,
		Disturbances:   w.disturbances,
		Events:         uint64(len(fr.segs)*7 + len(fr.lanes)*3),
	}
	if r.Findings == nil {
		r.Findings = []sim.Finding{}
	}
	n := int(math.Round(w.horizon/w.step)) + 1
	s := sim.Series{Step: w.step, Times: make([]float64, n), Processing: make([]float64, n),
		Lag: make([]float64, n), Moved: make([]float64, n), Revocations: make([]float64, n)}
	for k := range n {
		s.Times[k] = float64(k) * w.step
	}

	byPart := map[string][]sim.Segment{}
	for _, seg := range r.Timeline {
		byPart[seg.Partition] = append(byPart[seg.Partition], seg)
	}
	m := &r.Metrics
	// oldest is the largest age of an unprocessed record at each sample:
	// the fixture's stand-in for the latency of the records leaving.
	oldest := make([]float64, n)
	for _, p := range w.partitions {
		segs := byPart[p]
		processingAt := func(t float64) bool {
			for _, seg := range segs {
				if seg.Start <= t && (t < seg.End || t == w.horizon && t == seg.End) {
					return seg.State == "processing"
				}
			}
			return false
		}
		// Lag: grows at rate while nobody processes, drains otherwise.
		lag := 0.0
		for k := range n {
			if k > 0 {
				t0, t1 := s.Times[k-1], s.Times[k]
				if processingAt((t0 + t1) / 2) {
					lag = max(0, lag-w.drain*(t1-t0))
				} else {
					lag += w.rate * (t1 - t0)
				}
			}
			s.Lag[k] += lag
			if w.rate > 0 {
				oldest[k] = max(oldest[k], lag/w.rate)
			}
			if processingAt(s.Times[k]) {
				s.Processing[k]++
			}
		}
		// Downtime and gaps within the measurement window.
		gap, gapStart := 0.0, -1.0
		for _, seg := range segs {
			lo, hi := max(seg.Start, w.windowStart), min(seg.End, w.horizon)
			if hi <= lo {
				continue
			}
			switch seg.State {
			case "processing":
				if gapStart >= 0 {
					m.MaxPartitionGapSeconds = max(m.MaxPartitionGapSeconds, gap)
				}
				gap, gapStart = 0, -1
			case "double":
				m.DoubleOwnershipSeconds += hi - lo
			default:
				m.DowntimePartitionSeconds += hi - lo
				if gapStart < 0 {
					gapStart = lo
				}
				gap = hi - gapStart
			}
		}
		m.MaxPartitionGapSeconds = max(m.MaxPartitionGapSeconds, gap)
	}
	for k := range n {
		s.Processing[k] /= float64(len(w.partitions))
		for _, t := range fr.moves {
			if t <= s.Times[k] {
				s.Moved[k]++
			}
		}
		for _, t := range fr.revokes {
			if t <= s.Times[k] {
				s.Revocations[k]++
			}
		}
	}
	// The latency series: steps of ten samples, the largest age in each as
	// its max and nine tenths of it as its p99.
	s.Latency = sim.LatencySeries{Step: 10 * w.step}
	for k := 10; k < n; k += 10 {
		worst := slices.Max(oldest[k-10 : k+1])
		s.Latency.Times = append(s.Latency.Times, s.Times[k])
		s.Latency.Max = append(s.Latency.Max, worst)
		s.Latency.P99 = append(s.Latency.P99, 0.9*worst)
		s.Latency.P50 = append(s.Latency.P50, 0)
		m.LatencyMaxSeconds = max(m.LatencyMaxSeconds, worst)
	}
	r.Series = s

	m.Rebalances = fr.rebalances
	m.MovedPartitions = len(fr.moves)
	m.Revocations = len(fr.revokes)
	m.Converged = true
	for _, c := range fr.conv {
		m.ConvergenceSeconds = max(m.ConvergenceSeconds, c.Seconds)
		m.Converged = m.Converged && c.Converged
	}
	base := 0.0
	for k, t := range s.Times {
		if t < w.windowStart {
			base = s.Lag[k]
		}
		m.PeakLagRecords = max(m.PeakLagRecords, s.Lag[k])
	}
	for k := len(s.Times) - 1; k >= 0; k-- {
		if s.Lag[k] > base+w.rate {
			if k+1 < len(s.Times) {
				m.LagRecoverySeconds = s.Times[k+1] - w.windowStart
			}
			break
		}
	}
	for _, l := range fr.lanes {
		if l.State == "rebalancing" && l.Start >= w.windowStart {
			m.MemberIdleSeconds += l.End - l.Start
		}
	}
	return r
}

func clientMetrics(member string, latencyAvg, latencyMax float64, total, failed int, revokedAvg float64) sim.MemberMetrics {
	return sim.MemberMetrics{Member: member, Metrics: []sim.NamedMetric{
		{Name: "failed-rebalance-total", Value: float64(failed)},
		{Name: "partitions-revoked-latency-avg", Value: revokedAvg},
		{Name: "rebalance-latency-avg", Value: latencyAvg},
		{Name: "rebalance-latency-max", Value: latencyMax},
		{Name: "rebalance-total", Value: float64(total)},
	}}
}

func seg(p int, owner, state string, start, end float64) sim.Segment {
	return sim.Segment{Partition: fmt.Sprintf("orders-%d", p), Owner: owner, State: state, Start: start, End: end}
}

func lane(member, state string, start, end float64) sim.MemberSegment {
	return sim.MemberSegment{Member: member, State: state, Start: start, End: end}
}

// labReport is DESIGN.md's 12-partition lab: c1, c2 and c3 own 4
// partitions each, c4 joins at 30s, and c2 has a 12s GC pause at 60s.
// Eager revokes everything and moves six partitions (range), cooperative
// and nextgen move the minimum three. The cooperative run also carries a
// made-up double ownership so that the red path is drawn and listed.
func labReport() *Report {
	w := fixtureWorld{
		name: "lab-scale-out", horizon: 120, windowStart: 30, step: 1, rate: 1000, drain: 1000,
		disturbances: []sim.Disturbance{
			{Kind: "start", Members: []string{"c4"}, Start: 30, End: 30, Label: "start c4"},
			{Kind: "pause", Members: []string{"c2"}, Start: 60, End: 72, Label: "pause c2"},
		},
	}
	for p := range 12 {
		w.partitions = append(w.partitions, fmt.Sprintf("orders-%d", p))
	}
	initial := func(p int) string { return fmt.Sprintf("c%d", p/4+1) }
	const joined = 3.1

	// Eager: every partition stops from the revocation until the new
	// generation's assignment (range: c1 0-2, c2 3-5, c3 6-8, c4 9-11).
	eager := fixtureRun{protocol: "eager", rebalances: 1}
	for p := range 12 {
		after := fmt.Sprintf("c%d", p/3+1)
		eager.segs = append(eager.segs,
			seg(p, "", "unowned", 0, joined),
			seg(p, initial(p), "processing", joined, 30.05),
			seg(p, "", "unowned", 30.05, 33.2))
		if after == "c2" {
			eager.segs = append(eager.segs, seg(p, after, "processing", 33.2, 60), seg(p, after, "stalled", 60, 72), seg(p, after, "processing", 72, 120))
		} else {
			eager.segs = append(eager.segs, seg(p, after, "processing", 33.2, 120))
		}
		eager.revokes = append(eager.revokes, 30.05)
		if after != initial(p) {
			eager.moves = append(eager.moves, 33.2)
		}
	}
	eager.conv = []sim.Convergence{{Disturbance: "start c4", At: 30, Seconds: 3.2, Converged: true}, {Disturbance: "pause c2", At: 60, Seconds: 0, Converged: true}}
	for i, m := range []string{"c1", "c2", "c3", "c4"} {
		if m == "c4" {
			eager.lanes = append(eager.lanes, lane(m, "down", 0, 30), lane(m, "rebalancing", 30, 33.2), lane(m, "processing", 33.2, 120))
		} else {
			eager.lanes = append(eager.lanes, lane(m, "rebalancing", 0, joined), lane(m, "processing", joined, 30.05), lane(m, "rebalancing", 30.05, 33.2))
			if m == "c2" {
				eager.lanes = append(eager.lanes, lane(m, "processing", 33.2, 60), lane(m, "paused", 60, 72), lane(m, "processing", 72, 120))
			} else {
				eager.lanes = append(eager.lanes, lane(m, "processing", 33.2, 120))
			}
		}
		eager.members = append(eager.members, clientMetrics(m, 3150-float64(i)*10, 3200, 2, 0, 12.5))
	}

	// Cooperative: the first rebalance revokes one partition from each of
	// c1, c2 and c3; the second gives them to c4.
	coop := fixtureRun{protocol: "cooperative", rebalances: 2}
	// Nextgen: the same three move, driven by heartbeats instead of a
	// second JoinGroup round.
	next := fixtureRun{protocol: "nextgen", rebalances: 1}
	for _, run := range []*fixtureRun{&coop, &next} {
		revokeAt, assignAt := 30.3, 30.6
		if run == &next {
			revokeAt, assignAt = 30.4, 31.2
		}
		for p := range 12 {
			owner := initial(p)
			run.segs = append(run.segs, seg(p, "", "unowned", 0, joined))
			moving := p%4 == 3
			switch {
			case moving:
				run.segs = append(run.segs, seg(p, owner, "processing", joined, revokeAt), seg(p, "", "unowned", revokeAt, assignAt), seg(p, "c4", "processing", assignAt, 120))
				run.revokes = append(run.revokes, revokeAt)
				run.moves = append(run.moves, assignAt)
			case owner == "c2":
				run.segs = append(run.segs, seg(p, owner, "processing", joined, 60), seg(p, owner, "stalled", 60, 72), seg(p, owner, "processing", 72, 120))
			default:
				run.segs = append(run.segs, seg(p, owner, "processing", joined, 120))
			}
		}
		for _, m := range []string{"c1", "c2", "c3", "c4"} {
			switch m {
			case "c4":
				run.lanes = append(run.lanes, lane(m, "down", 0, 30), lane(m, "rebalancing", 30, assignAt), lane(m, "processing", assignAt, 120))
			case "c2":
				run.lanes = append(run.lanes, lane(m, "rebalancing", 0, joined), lane(m, "processing", joined, 60), lane(m, "paused", 60, 72), lane(m, "processing", 72, 120))
			default:
				run.lanes = append(run.lanes, lane(m, "rebalancing", 0, joined), lane(m, "processing", joined, 120))
			}
		}
	}
	coop.conv = []sim.Convergence{{Disturbance: "start c4", At: 30, Seconds: 0.6, Converged: true}, {Disturbance: "pause c2", At: 60, Seconds: 0, Converged: true}}
	next.conv = []sim.Convergence{{Disturbance: "start c4", At: 30, Seconds: 1.2, Converged: true}, {Disturbance: "pause c2", At: 60, Seconds: 0, Converged: true}}
	// The made-up safety violation: orders-5 owned by c2 and c4 for 0.4s.
	for i, s := range coop.segs {
		if s.Partition == "orders-5" && s.Start == 72 {
			coop.segs[i].Start = 72.4
			coop.segs = append(coop.segs, seg(5, "c2+c4", "double", 72, 72.4))
			break
		}
	}
	coop.findings = []sim.Finding{{Kind: "double_ownership", At: 72, Members: []string{"c2", "c4"}, Partitions: []string{"orders-5"},
		Detail: "c2 resumed after its pause still believing it owned orders-5 (made up for the report tests)"}}
	for i, m := range []string{"c1", "c2", "c3", "c4"} {
		coop.members = append(coop.members, clientMetrics(m, 310+float64(i)*5, 620, 3, 0, 2.25))
		next.members = append(next.members, clientMetrics(m, 95+float64(i), 140, 1, 0, 1.5))
	}

	return &Report{
		Version: "v0.0.0-test",
		Scenario: ScenarioInfo{
			Name:        w.name,
			Description: "three consumers share 12 partitions; a fourth joins, then c2 pauses for GC (see https://kafka.apache.org)",
			Seed:        1,
			Duration:    120,
			Protocols:   []string{"eager", "cooperative", "nextgen"},
			Topics:      []TopicInfo{{Name: "orders", Partitions: 12, Rate: 1000}},
			Network:     "constant 2ms",
			Group:       map[string]string{"initial_rebalance_delay": "3s", "session_timeout": "45s", "heartbeat_interval": "5s", "assignor": "uniform"},
			Defaults:    map[string]string{"session_timeout": "45s", "heartbeat_interval": "3s", "processing_rate": "2000"},
			Members: []MemberInfo{
				{ID: "c1", Settings: map[string]string{"session_timeout": "45s", "heartbeat_interval": "3s", "processing_rate": "2000"}},
				{ID: "c2", Settings: map[string]string{"session_timeout": "45s", "heartbeat_interval": "3s", "processing_rate": "2000"}},
				{ID: "c3", Settings: map[string]string{"session_timeout": "45s", "heartbeat_interval": "3s", "processing_rate": "2000"}},
				{ID: "c4", Start: 30, Settings: map[string]string{"session_timeout": "45s", "heartbeat_interval": "3s", "processing_rate": "2000", "static": "true"}},
			},
			Disturbances: []EventInfo{{At: 30, Kind: "start", Members: []string{"c4"}}, {At: 60, Kind: "pause", Members: []string{"c2"}, For: 12}},
		},
		Runs: []*sim.Result{w.finish(eager), w.finish(coop), w.finish(next)},
	}
}

// largeReport is a group of members consumers over partitions partitions:
// c1 crashes at 30s and is detected at 75s, then five members restart one
// after the other from 100s. Eager stops every partition at each
// rebalance; cooperative and nextgen stop only the partitions that move.
func largeReport(members, partitions int) *Report {
	const horizon = 150.0
	const restarts = 5
	w := fixtureWorld{name: fmt.Sprintf("large-%dx%d", members, partitions), horizon: horizon, windowStart: 30, step: 1, rate: 100, drain: 400}
	w.disturbances = append(w.disturbances, sim.Disturbance{Kind: "crash", Members: []string{"c1"}, Start: 30, End: 30, Label: "crash c1"})
	for k := range restarts {
		m := fmt.Sprintf("c%d", k+2)
		at := 100 + 4*float64(k)
		w.disturbances = append(w.disturbances, sim.Disturbance{Kind: "restart", Members: []string{m}, Start: at, End: at + 2, Label: "rolling restart " + m})
	}
	for p := range partitions {
		w.partitions = append(w.partitions, fmt.Sprintf("orders-%d", p))
	}
	member := func(i int) string { return fmt.Sprintf("c%d", i+1) }

	build := func(protocol string) fixtureRun {
		fr := fixtureRun{protocol: protocol, rebalances: 1 + restarts}
		eager := protocol == "eager"
		for p := range partitions {
			owner := member(p % members)
			t := 3.0
			fr.segs = append(fr.segs, seg(p, "", "unowned", 0, t))
			// emit closes the current owner's processing stretch at end.
			emit := func(end float64) {
				if end > t {
					fr.segs = append(fr.segs, seg(p, owner, "processing", t, end))
				}
			}
			if owner == "c1" {
				emit(30)
				fr.segs = append(fr.segs, seg(p, owner, "stalled", 30, 75))
				t = 75
			}
			// Failure detection at 75s: eager reassigns everything.
			switch {
			case eager:
				emit(75)
				fr.segs = append(fr.segs, seg(p, "", "unowned", 75, 78))
				fr.revokes = append(fr.revokes, 75)
				newOwner := member(p%(members-1) + 1)
				if newOwner != owner {
					fr.moves = append(fr.moves, 78)
				}
				owner, t = newOwner, 78
			case owner == "c1":
				done := 75.5
				if protocol == "cooperative" {
					done = 76.5
				}
				fr.segs = append(fr.segs, seg(p, "", "unowned", 75, done))
				fr.revokes = append(fr.revokes, 75)
				fr.moves = append(fr.moves, done)
				owner, t = member((p/members)%(members-1)+1), done
			}
			for k := range restarts {
				at := 100 + 4*float64(k)
				restarted := member(k + 1)
				switch {
				case eager:
					emit(at)
					fr.segs = append(fr.segs, seg(p, "", "unowned", at, at+2.5))
					fr.revokes = append(fr.revokes, at)
					t = at + 2.5
				case owner == restarted:
					emit(at)
					fr.segs = append(fr.segs, seg(p, "", "unowned", at, at+2.3))
					t = at + 2.3
				}
			}
			emit(horizon)
		}
		for i := range members {
			m := member(i)
			fr.lanes = append(fr.lanes, lane(m, "rebalancing", 0, 3))
			switch {
			case i == 0:
				fr.lanes = append(fr.lanes, lane(m, "processing", 3, 30), lane(m, "down", 30, horizon))
			case eager:
				t := 3.0
				for _, stop := range []float64{75, 100, 104, 108, 112, 116} {
					end := stop + 3
					if stop >= 100 {
						end = stop + 2.5
					}
					fr.lanes = append(fr.lanes, lane(m, "processing", t, stop), lane(m, "rebalancing", stop, end))
					t = end
				}
				fr.lanes = append(fr.lanes, lane(m, "processing", t, horizon))
			case i <= restarts:
				at := 100 + 4*float64(i-1)
				fr.lanes = append(fr.lanes, lane(m, "processing", 3, at), lane(m, "down", at, at+2), lane(m, "rebalancing", at+2, at+2.3), lane(m, "processing", at+2.3, horizon))
			default:
				fr.lanes = append(fr.lanes, lane(m, "processing", 3, horizon))
			}
			fr.members = append(fr.members, clientMetrics(m, 250+float64(i%7)*10, 900, 1+restarts, 0, 4))
		}
		fr.conv = append(fr.conv, sim.Convergence{Disturbance: "crash c1", At: 30, Seconds: 48, Converged: true})
		for k := range restarts {
			fr.conv = append(fr.conv, sim.Convergence{Disturbance: fmt.Sprintf("rolling restart c%d", k+2), At: 100 + 4*float64(k), Seconds: 2.5, Converged: true})
		}
		return fr
	}

	info := ScenarioInfo{
		Name: w.name, Seed: 1, Duration: horizon,
		Protocols: []string{"eager", "cooperative", "nextgen"},
		Topics:    []TopicInfo{{Name: "orders", Partitions: int32(partitions), Rate: w.rate}},
		Defaults:  map[string]string{"session_timeout": "45s"},
	}
	for i := range members {
		info.Members = append(info.Members, MemberInfo{ID: member(i), Settings: map[string]string{"session_timeout": "45s"}})
	}
	var restarted []string
	for k := range restarts {
		restarted = append(restarted, member(k+1))
	}
	info.Disturbances = []EventInfo{
		{At: 30, Kind: "crash", Members: []string{"c1"}},
		{At: 100, Kind: "rolling_restart", Members: restarted, For: 2, Interval: 4, Detail: "killed"},
	}
	rep := &Report{Version: "v0.0.0-test", Scenario: info}
	for _, p := range []string{"eager", "cooperative", "nextgen"} {
		rep.Runs = append(rep.Runs, w.finish(build(p)))
	}
	return rep
}

// partitionNames lists a run's partitions in natural order.
func partitionNames(run *sim.Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range run.Timeline {
		if !seen[s.Partition] {
			seen[s.Partition] = true
			out = append(out, s.Partition)
		}
	}
	slices.SortFunc(out, naturalCompare)
	return out
}
