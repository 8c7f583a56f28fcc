package report

import (
	"cmp"
	"slices"

	"github.com/rebalsim/rebalsim/sim"
)

// maxOwnershipRows bounds the rows of an ownership timeline. Past it, rows
// are sampled: at about 5 points a row a partition is still a visible band.
const maxOwnershipRows = 96

// ownershipChart draws one run's partition ownership over virtual time:
// a row per partition, coloured by owner.
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
	rowsIdx := sampleRows(len(parts), maxOwnershipRows)

	var rows [][]laneBar
	var names []string
	owners := map[int]bool{}
	for _, i := range rowsIdx {
		p := parts[i]
		names = append(names, p)
		var row []laneBar
		for _, s := range byPart[p] {
			owner := order.of(s.Owner)
			look, ok := ownershipLook(s.State, owner)
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

	p := lanePlot(names, end, yLabel)
	ds := disturbances(r)
	// Bands go over the bars: under them they would only show in gaps.
	p.Add(lanes{rows: rows, end: end}, disturbanceBands(ds), disturbanceLines{ds: ds})

	// Legend: the owners drawn, in member order, then what the other
	// looks mean.
	var legend []legendItem
	legend = append(legend, legendItem{name: "owner"})
	var ownerItems []legendItem
	for i, m := range order.names {
		if owners[i] {
			ownerItems = append(ownerItems, legendItem{name: m, thumb: swatch(fillLook{fill: memberColor(i)})})
		}
	}
	legend = append(legend, fitLegend(ownerItems, 14, "members")...)
	grey := memberColor(-1)
	legend = append(legend,
		legendItem{name: "state"},
		legendItem{name: "owner stalled", thumb: swatch(fillLook{fill: lighten(grey, 0.65), hatch: hatchDiagonal, hatchColor: grey})},
		legendItem{name: "two owners", thumb: swatch(fillLook{fill: rgb(doubleOwnershipHex), hatch: hatchCross, hatchColor: rgb(inkHex)})},
		legendItem{name: "unowned", thumb: swatch(fillLook{fill: rgb(0xFFFFFF)})},
	)

	subtitle := scenarioName(r) + ": " + rowsNote(len(rowsIdx), len(parts), "partitions", how)
	if len(order.names) > memberPaletteSize {
		subtitle += "; member colours repeat every 12"
	}
	return plotChart("ownership-"+name, "Partition ownership — "+run.Protocol, subtitle,
		"Each row is a partition over virtual time, coloured by its owner: blank means nobody owns it, lighter and hatched means its owner is not processing, red means two owners at once. Dashed lines mark disturbances, grey bands their duration.", legend, p)
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
