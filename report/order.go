package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalsim/rebalsim/sim"
)

// naturalCompare orders names so that embedded numbers compare by value:
// c2 < c10 and orders-9 < orders-10, as people count members and partitions.
// Distinct names never compare equal ("c01" and "c1" fall back to bytes).
func naturalCompare(a, b string) int {
	if c := naturalCompareNumbers(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func naturalCompareNumbers(a, b string) int {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitsPrefix(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// memberOrder numbers every member the report mentions: first the
// scenario's members in scenario order, then any other member a run names,
// in natural order. The number fixes a member's colour and row everywhere.
type memberOrder struct {
	index map[string]int
	names []string
}

func newMemberOrder(r *Report) *memberOrder {
	o := &memberOrder{index: map[string]int{}}
	add := func(name string) {
		if _, ok := o.index[name]; !ok && name != "" {
			o.index[name] = len(o.names)
			o.names = append(o.names, name)
		}
	}
	for _, m := range r.Scenario.Members {
		add(m.ID)
	}
	var extra []string
	seen := map[string]bool{}
	note := func(name string) {
		if _, ok := o.index[name]; !ok && name != "" && !seen[name] {
			seen[name] = true
			extra = append(extra, name)
		}
	}
	for _, run := range r.Runs {
		for _, m := range run.Members {
			note(m.Member)
		}
		for _, s := range run.MemberTimeline {
			note(s.Member)
		}
		for _, s := range run.Timeline {
			if s.State != "double" {
				note(s.Owner)
			}
		}
	}
	slices.SortFunc(extra, naturalCompare)
	for _, name := range extra {
		add(name)
	}
	return o
}

// of returns a member's number; unknown names (such as the combined owner
// of a double-owned stretch) get -1.
func (o *memberOrder) of(name string) int {
	if i, ok := o.index[name]; ok {
		return i
	}
	return -1
}

// disturbances merges the runs' disturbances: the runs share one scenario,
// so they normally list the same ones; a disturbance that only one run saw
// is kept too. Order is by start time, then first appearance.
func disturbances(r *Report) []sim.Disturbance {
	type key struct {
		label string
		start float64
	}
	seen := map[key]bool{}
	var out []sim.Disturbance
	for _, run := range r.Runs {
		for _, d := range run.Disturbances {
			k := key{d.Label, d.Start}
			if !seen[k] {
				seen[k] = true
				out = append(out, d)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b sim.Disturbance) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// horizon is the end of the charts' time axis: the latest instant any run
// accounts for.
func horizon(r *Report) float64 {
	h := r.Scenario.Duration
	for _, run := range r.Runs {
		h = max(h, run.WindowEnd)
		for _, s := range run.Timeline {
			h = max(h, s.End)
		}
		for _, s := range run.MemberTimeline {
			h = max(h, s.End)
		}
		if n := len(run.Series.Times); n > 0 {
			h = max(h, run.Series.Times[n-1])
		}
	}
	if h <= 0 {
		h = 1
	}
	return h
}

// runNames gives each run a unique, file-safe name: its protocol, with a
// numeric suffix when two runs share a protocol.
func runNames(r *Report) []string {
	names := make([]string, len(r.Runs))
	used := map[string]int{}
	for i, run := range r.Runs {
		base := fileSafe(run.Protocol)
		if base == "" {
			base = "run"
		}
		used[base]++
		names[i] = base
		if used[base] > 1 {
			names[i] = fmt.Sprintf("%s-%d", base, used[base])
		}
	}
	return names
}

func fileSafe(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Numbers in text outputs. Counts print as integers, seconds with
// millisecond resolution (the simulator's clock is finer, but nobody
// compares protocols on microseconds), records as whole records.

func formatMetric(name string, v float64) string {
	switch {
	case strings.HasSuffix(name, "_seconds"):
		return formatFixed(v, 3)
	default:
		return formatFixed(v, 0)
	}
}

func formatFixed(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.TrimLeft(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-") // no "-0.000"
	}
	return s
}

// formatNumber prints a client metric compactly: integers as integers,
// other values with up to three decimals.
func formatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return formatFixed(v, 0)
	}
	s := formatFixed(v, 3)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// formatSeconds prints a time as "12.5s".
func formatSeconds(v float64) string {
	s := formatFixed(v, 3)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "s"
}

// abbreviate lists at most n names, then says how many more there are.
func abbreviate(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ",")
	}
	return fmt.Sprintf("%s,… (%d more)", strings.Join(names[:n], ","), len(names)-n)
}
