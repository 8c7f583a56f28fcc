package report

import (
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

// partitionsReport is the lab report with one hot partition that waited
// longest under eager, and duplicates from two rebalances.
func partitionsReport() *Report {
	r := labReport()
	for _, run := range r.Runs {
		run.HotPartitions = []string{"orders-3"}
	}
	r.Runs[0].WorstPartitions = []sim.PartitionMetrics{
		{Partition: "orders-3", Rate: 5000, Hot: true, Moves: 2, PeakLagRecords: 61234.4, MaxLagSeconds: 12.5},
		// No lag in time: not listed, nor anything after it.
		{Partition: "orders-1", Rate: 250, Moves: 1},
	}
	r.Runs[0].DuplicatesByRebalance = []sim.RebalanceDuplicates{{Rebalance: 1, At: 30.25, Disturbance: "start c4", Records: 42}}
	r.Runs[1].DuplicatesByRebalance = []sim.RebalanceDuplicates{{Rebalance: 0, At: 100, Records: 7}}
	return r
}

// TestPartitionsSectionEverywhere: the terminal table, the Markdown and
// report.html say the same about partitions, each in its own layout: the
// hot partition, the one partition with lag in time (the one without is
// left out), and both runs' duplicates by rebalance ("none yet" where no
// rebalance completed, "-" where no disturbance came before).
func TestPartitionsSectionEverywhere(t *testing.T) {
	r := partitionsReport()
	var text, md, page strings.Builder
	if err := Table(&text, r); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"hot partitions (at least twice their topic's median rate): orders-3\n",
		"partitions with the largest lag in time\n",
		"  run    partition  rate  hot  moves  peak lag  max lag\n  eager  orders-3   5000  yes  2      61234     12.5s\n",
		"duplicate records by the rebalance that caused them\n",
		"  eager        1          30.25s  start c4  42\n",
		"  cooperative  none yet   100s    -         7\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{
		"**Hot partitions (at least twice their topic's median rate):** orders-3\n",
		"**Partitions with the largest lag in time**\n\n| run | partition | rate | hot | moves | peak lag | max lag |\n| --- | --- | ---: | --- | ---: | ---: | ---: |\n| eager | orders-3 | 5000 | yes | 2 | 61234 | 12.5s |\n",
		"| eager | 1 | 30.25s | start c4 | 42 |\n| cooperative | none yet | 100s | - | 7 |\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(text.String()+md.String(), "orders-1") {
		t.Error("a partition without lag in time is listed")
	}
	p := page.String()
	checkWellFormed(t, p)
	for _, want := range []string{
		`<section id="partitions">`,
		"<strong>Hot partitions (at least twice their topic&#39;s median rate):</strong> orders-3",
		`<h3 id="worst-partitions">Partitions with the largest lag in time</h3>`,
		`<tr><td>eager</td><td>orders-3</td><td class="num">5000</td><td>yes</td><td class="num">2</td><td class="num">61234</td><td class="num">12.5s</td></tr>`,
		`<h3 id="duplicates-by-rebalance">Duplicate records by the rebalance that caused them</h3>`,
		`<tr><td>cooperative</td><td class="num">none yet</td><td class="num">100s</td><td>-</td><td class="num">7</td></tr>`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}

	// Even load and no lag: no section anywhere.
	page.Reset()
	if err := HTML(&page, labReport()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), `id="partitions"`) {
		t.Error("report.html has a partitions section for a report with nothing to say in it")
	}
}

// TestHotOverSeeds: one list when every seed has the same hot partitions,
// else each seed's, and nothing when none has any.
func TestHotOverSeeds(t *testing.T) {
	seeds := func(hot ...[]string) *Seeds {
		var s Seeds
		for i, h := range hot {
			r := labReport()
			r.Scenario.Seed = uint64(i + 1)
			for _, run := range r.Runs {
				run.HotPartitions = h
			}
			s.Reports = append(s.Reports, r)
		}
		return &s
	}
	cases := []struct {
		name string
		s    *Seeds
		want string
	}{
		{"none", seeds(nil, nil), ""},
		{"same", seeds([]string{"t-0", "t-7"}, []string{"t-0", "t-7"}), "hot partitions (at least twice their topic's median rate): t-0, t-7, on every seed"},
		{"by seed", seeds([]string{"t-2"}, nil), "hot partitions (at least twice their topic's median rate), by seed: seed 1: t-2; seed 2: -"},
	}
	for _, c := range cases {
		if got := hotOverSeeds(c.s); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	var b strings.Builder
	if err := SeedsTable(&b, seeds([]string{"t-0"}, []string{"t-0"})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nhot partitions (at least twice their topic's median rate): t-0, on every seed\n") {
		t.Errorf("compare over seeds does not name the hot partitions:\n%s", b.String())
	}
}
