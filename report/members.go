package report

import (
	"github.com/rebalsim/rebalsim/sim"
)

// maxMemberRows bounds the swim lanes of one chart; larger groups are
// sampled evenly in member order.
const maxMemberRows = 40

// membersChart draws one run's member swim lanes: a row per member, coloured
// by what the member was doing.
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
	idx := sampleRows(len(members), maxMemberRows)
	var rows [][]laneBar
	var names []string
	for _, i := range idx {
		m := members[i]
		names = append(names, m)
		var row []laneBar
		for _, s := range byMember[m] {
			row = append(row, laneBar{start: s.Start, end: s.End, look: memberStateLook(s.State), urgent: s.State == "fenced",
				interruption: s.State != "processing" && s.State != "down" && s.State != "idle"})
		}
		rows = append(rows, row)
	}
	p := lanePlot(names, end, "member")
	ds := disturbances(r)
	p.Add(lanes{rows: rows, end: end}, disturbanceBands(ds), disturbanceLines{ds: ds})

	legend := []legendItem{{name: "member state"}}
	for _, st := range memberStates() {
		legend = append(legend, legendItem{name: st, thumb: swatch(memberStateLook(st))})
	}
	return plotChart("members-"+name, "Member activity — "+run.Protocol, scenarioName(r)+": "+rowsNote(len(idx), len(members), "members", " in scenario order"),
		"Each row is a member over virtual time, coloured by what it was doing: green is processing, hatched orange is waiting in a rebalance, purple paused, blue stalled, dark red fenced, black down. A stop-the-world rebalance shows as every row leaving green at once.", legend, p)
}
