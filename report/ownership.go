package report

import (
	"cmp"
	"slices"

	"github.com/rebalsim/rebalsim/sim"
)

// ownershipChart draws one run's partition ownership over virtual time:
// a row per partition, coloured by owner. Once owners outnumber the
// colours one can tell apart, a colour per owner carries no information;
// the rows are then coloured by whether the partition is still with its
// first owner or has moved, which is what matters at that scale.
func ownershipChart(r *Report, order *memberOrder, run *sim.Result, name string, end float64) Chart {
	// Group the timeline by partition; the result keeps it sorted by
	// partition and start, but a hand-made result may not.
	byPart := map[string][]sim.Segment{}
	var parts []string
	for _, s := range run.Timeline {
		if _, ok := byPart[s.Partition]; !ok {
			parts = append(parts, s.Partition)
		}
		byPart[s.Partition] = append(byPart[s.Partition], s)
	}
	slices.SortFunc(parts, naturalCompare)

	// Few partitions read best in their natural order. Many read best
	// grouped by where they ended up: each member becomes one band of its
	// colour, and movement shows as colour changes within the band.
	how := ""
	yLabel := "partition"
	if len(parts) > maxLabelledRows {
		finalOwner := map[string]int{}
		for _, p := range parts {
			finalOwner[p] = finalOwnerIndex(byPart[p], order)
		}
		slices.SortStableFunc(parts, func(a, b string) int {
			return cmp.Compare(finalOwner[a], finalOwner[b])
		})
		how = ", rows sorted by final owner"
		yLabel = "partition (sorted by final owner)"
	}
	byMove := len(order.names) > memberPaletteSize
	start := windowStart(r)
	var rows [][]laneBar
	owners := map[int]bool{}
	for _, p := range parts {
		var row []laneBar
		first := ownerAt(byPart[p], start)
		for _, s := range byPart[p] {
			owner := order.of(s.Owner)
			look, ok := ownershipLook(s.State, owner)
			if byMove {
				look, ok = movedLook(s.State, s.Owner != first)
			}
			if !ok {
				// Unowned: drawn blank (white) over the bars around it,
				// so that a short gap stays visible.
				look = fillLook{fill: rgb(0xFFFFFF)}
			}
			if s.State != "double" {
				owners[owner] = true
			}
			row = append(row, laneBar{start: s.Start, end: s.End, look: look, urgent: s.State == "double",
				interruption: s.State == "unowned" || s.State == "stalled"})
		}
		rows = append(rows, row)
	}
	binned := binnedLanes(rows)

	p := lanePlot(parts, start, end, yLabel)
	ds := disturbances(r)
	// Bands go over the bars: under them they would only show in gaps. A
	// heatmap shows downtime itself, and bands over it would shift its
	// shades.
	p.Add(lanes{rows: rows, start: start, end: end})
	if !binnedLanes(rows) {
		p.Add(disturbanceBands(ds))
	}
	p.Add(disturbanceMarks(ds))

	// Legend: the owners drawn, in member order (or kept and moved), then
	// what the other looks mean.
	solid := func(l fillLook) fillLook {
		if binned {
			return fillLook{fill: l.solid(), outline: l.outline}
		}
		return l
	}
	var legend []legendItem
	if byMove {
		kept, _ := movedLook("processing", false)
		moved, _ := movedLook("processing", true)
		legend = append(legend, legendItem{name: "owner"},
			legendItem{name: "owner at window start", thumb: swatch(kept)},
			legendItem{name: "moved since", thumb: swatch(moved)})
	} else {
		legend = append(legend, legendItem{name: "owner"})
		var ownerItems []legendItem
		for i, m := range order.names {
			if owners[i] {
				ownerItems = append(ownerItems, legendItem{name: m, thumb: swatch(fillLook{fill: memberColor(i)})})
			}
		}
		legend = append(legend, fitLegend(ownerItems, 14, "members")...)
	}
	grey := memberColor(-1)
	stalled := fillLook{fill: lighten(grey, 0.65), hatch: hatchDiagonal, hatchColor: grey}
	if byMove {
		stalled, _ = movedLook("stalled", false)
	}
	legend = append(legend,
		legendItem{name: "state"},
		legendItem{name: "owner stalled", thumb: swatch(solid(stalled))},
		legendItem{name: "two owners", thumb: swatch(solid(fillLook{fill: rgb(doubleOwnershipHex), hatch: hatchCross, hatchColor: rgb(inkHex)}))},
		legendItem{name: "unowned", thumb: swatch(fillLook{fill: rgb(0xFFFFFF)})},
	)

	subtitle := scenarioName(r) + ": " + lanesNote(len(parts), "partitions", how, binned)
	caption := "Each row is a partition over virtual time, coloured by its owner: blank means nobody owns it, lighter and hatched means its owner is not processing, red means two owners at once. Grey bands mark disturbances that last; the marks along the top, when they began."
	if byMove {
		subtitle += "; coloured by owner at window start or moved"
		caption = "Each row is a partition over the measurement window: pale blue while the member that owned it when the window began has it, orange once it has moved to another member, dark grey while its owner is stalled, blank while nobody owns it, red for two owners at once."
	}
	if binned {
		caption += " Each pixel mixes the states of its rows and time, weighted by the time spent in each, so that the area of a colour is the share of partition time in that state; a pixel with two owners at any instant is red whole."
	}
	return plotChart("ownership-"+name, "Partition ownership — "+run.Protocol, subtitle, caption, legend, p)
}

// movedLook is how a partition segment is drawn when owners outnumber
// colours: pale blue with its first owner, strong orange after a move,
// dark grey while its owner is stalled, red with two owners, blank
// unowned. Pale against strong keeps a binned pixel readable: the more
// orange, the more of its time had moved.
func movedLook(state string, moved bool) (fillLook, bool) {
	switch state {
	case "processing":
		if moved {
			return fillLook{fill: rgb(0xE6550D)}, true
		}
		return fillLook{fill: rgb(0xC6DBEF)}, true
	case "stalled":
		return fillLook{fill: rgb(0x525252)}, true
	}
	return ownershipLook(state, -1)
}

// ownerAt is the partition's owner when the measurement window begins at
// start: the owner of its first owned segment that is still going on then,
// or of the first after it. Moves are counted from this owner, as
// moved_partitions counts the handoffs within the window; the start-up's
// first assignments are not moves.
func ownerAt(segs []sim.Segment, start float64) string {
	for _, s := range segs {
		if s.Owner != "" && s.State != "double" && s.End > start {
			return s.Owner
		}
	}
	return ""
}

// finalOwnerIndex is the member number of the partition's last owner, or
// a number after every member if it ends unowned.
func finalOwnerIndex(segs []sim.Segment, order *memberOrder) int {
	last := -1
	lastEnd := -1.0
	for _, s := range segs {
		if (s.State == "processing" || s.State == "stalled") && s.End >= lastEnd {
			if i := order.of(s.Owner); i >= 0 {
				last, lastEnd = i, s.End
			}
		}
	}
	if last < 0 {
		return len(order.names)
	}
	return last
}
