package report

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rebalsim/rebalsim/sim"
)

// The timeline modes of Options.Timeline.
const (
	TimelineAuto       = "auto"
	TimelineFull       = "full"
	TimelineSummarised = "summary"
)

// TimelineModes lists the modes, for flag help and errors.
func TimelineModes() []string { return []string{TimelineAuto, TimelineFull, TimelineSummarised} }

// maxFullSegments is the most partition and member segments result.json
// holds in full by default: about 3 MB of JSON. A 1,000-member rolling
// deploy has millions; its file would be hundreds of megabytes that no
// reader opens, while the charts, drawn from the whole history before it
// is summarised, already show it.
const maxFullSegments = 20000

// TimelineSummary is what result.json keeps of one run's timelines when
// they are summarised: how many segments there were and the time spent in
// each state, summed over partitions and over members.
type TimelineSummary struct {
	Protocol          string `json:"protocol"`
	PartitionSegments int    `json:"partition_segments"`
	MemberSegments    int    `json:"member_segments"`
	// PartitionSeconds and MemberSeconds are the seconds in each state,
	// in the order of the states' names.
	PartitionSeconds []StateSeconds `json:"partition_state_seconds"`
	MemberSeconds    []StateSeconds `json:"member_state_seconds"`
	Note             string         `json:"note"`
}

// StateSeconds is the time spent in one state.
type StateSeconds struct {
	State   string  `json:"state"`
	Seconds float64 `json:"seconds"`
}

// forSaving returns r as result.json should hold it under mode: r itself
// when the timelines stay whole, else a copy whose runs carry no
// timelines and whose TimelineSummary stands for them.
func forSaving(r *Report, mode string) (*Report, error) {
	segments := 0
	for _, run := range r.Runs {
		segments += len(run.Timeline) + len(run.MemberTimeline)
	}
	switch mode {
	case "", TimelineAuto:
		if segments <= maxFullSegments {
			return r, nil
		}
	case TimelineFull:
		return r, nil
	case TimelineSummarised:
	default:
		return nil, fmt.Errorf("report: timeline %q: want one of %v", mode, TimelineModes())
	}
	out := *r
	out.Runs = make([]*sim.Result, len(r.Runs))
	out.TimelineSummary = nil
	for i, run := range r.Runs {
		c := *run
		c.Timeline, c.MemberTimeline = []sim.Segment{}, []sim.MemberSegment{}
		out.Runs[i] = &c
		ts := TimelineSummary{Protocol: run.Protocol, PartitionSegments: len(run.Timeline), MemberSegments: len(run.MemberTimeline),
			Note: fmt.Sprintf("the timelines (%d segments in all) are summarised to keep result.json small; --timeline full keeps them", segments)}
		ps := map[string]float64{}
		for _, s := range run.Timeline {
			ps[s.State] += s.End - s.Start
		}
		ms := map[string]float64{}
		for _, s := range run.MemberTimeline {
			ms[s.State] += s.End - s.Start
		}
		ts.PartitionSeconds, ts.MemberSeconds = stateSeconds(ps), stateSeconds(ms)
		out.TimelineSummary = append(out.TimelineSummary, ts)
	}
	return &out, nil
}

// stateSeconds lists a map's states sorted by name. Each state's sum runs
// in timeline order, which the result fixes, so the bits are stable.
func stateSeconds(m map[string]float64) []StateSeconds {
	out := make([]StateSeconds, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, StateSeconds{State: k, Seconds: m[k]})
	}
	return out
}
