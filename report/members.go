package report

import (
	"github.com/rebalsim/rebalsim/sim"
)

// membersChart draws one run's member swim lanes: a row per member, coloured
// by what the member was doing. Every member has its row; past what bars
// can show, the rows become a heatmap of the share of time in each state
// (binnedLanes).
func membersChart(r *Report, order *memberOrder, run *sim.Result, name string, end float64) Chart {
	byMember := map[string][]sim.MemberSegment{}
	for _, s := range run.MemberTimeline {
		byMember[s.Member] = append(byMember[s.Member], s)
	}
	var members []string
	for _, m := range order.names {
		if _, ok := byMember[m]; ok {
			members = append(members, m)
		}
	}
	var rows [][]laneBar
	for _, m := range members {
		var row []laneBar
		for _, s := range byMember[m] {
			row = append(row, laneBar{start: s.Start, end: s.End, look: memberStateLook(s.State), urgent: s.State == "fenced",
				interruption: s.State != "processing" && s.State != "down" && s.State != "idle"})
		}
		rows = append(rows, row)
	}
	start := windowStart(r)
	p := lanePlot(members, start, end, "member")
	ds := disturbances(r)
	// Bands go over the bars: under them they would only show in gaps. A
	// heatmap shows downtime itself, and bands over it would shift its
	// shades.
	p.Add(lanes{rows: rows, start: start, end: end})
	if !binnedLanes(rows) {
		p.Add(disturbanceBands(ds))
	}
	p.Add(disturbanceMarks(ds))

	binned := binnedLanes(rows)
	legend := []legendItem{{name: "member state"}}
	for _, st := range memberStates() {
		look := memberStateLook(st)
		if binned {
			look = fillLook{fill: look.solid(), outline: look.outline}
		}
		legend = append(legend, legendItem{name: st, thumb: swatch(look)})
	}
	caption := "Each row is a member over virtual time, coloured by what it was doing: green is processing, hatched orange is waiting in a rebalance, purple paused, blue stalled, dark red fenced, black down. A stop-the-world rebalance shows as every row leaving green at once."
	if binned {
		caption = "Each pixel is a stretch of time of one or more members, its colour the mix of their states weighted by the time spent in each: green processing, orange waiting in a rebalance, purple paused, blue stalled, dark red fenced (drawn whole, however short), black down. The area of a colour is the share of member time in that state."
	}
	return plotChart("members-"+name, "Member activity — "+run.Protocol, scenarioName(r)+": "+lanesNote(len(members), "members", " in scenario order", binned),
		caption, legend, p)
}
