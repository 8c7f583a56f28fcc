package bench

import (
	"math"
	"strings"
	"testing"
)

// TestWriteTable tabulates costs of exactly 10 ns × partitions ×
// √members: the slopes are 1 along partitions and 0.5 along members
// everywhere, and so is the fit. Eager lacks its 10,000 × 1M point and
// nextgen has only its 100-member row, too few group sizes to fit.
func TestWriteTable(t *testing.T) {
	var rs []Result
	for _, p := range Grid() {
		if p == (Point{"eager", 10_000, 1_000_000}) || p.Protocol == "nextgen" && p.Members != 100 {
			continue
		}
		cost := 10 * float64(p.Partitions) * math.Sqrt(float64(p.Members))
		rs = append(rs, Result{p, map[string]float64{"ns/op": cost}})
	}
	var b strings.Builder
	if err := WriteTable(&b, rs, "ns/op"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| protocol | members | 1k | 10k | 100k | 1M |\n| --- | ---: | ---: | ---: | ---: | ---: |\n",
		// 10 ns × 1,000 × √100 = 100 µs, then tenfold per column.
		"| nextgen | 100 | 100 µs | 1.00 ms | 10.0 ms | 100 ms |\n",
		"| nextgen | 10 | — | — | — | — |\n",
		// 10 ns × 1,000 × √10,000 = 1 ms.
		"| eager | 10k | 1.00 ms | 10.0 ms | 100 ms | — |\n",
		"| protocol | members | 1k → 10k | 10k → 100k | 100k → 1M |\n",
		"| cooperative | 10 | 1.00 | 1.00 | 1.00 |\n",
		"| eager | 10k | 1.00 | 1.00 | — |\n",
		"| protocol | partitions | 10 → 100 | 100 → 1k | 1k → 10k |\n",
		"| eager | 1M | 0.50 | 0.50 | — |\n",
		"| nextgen | 1k | — | — | — |\n",
		"| eager | 0.50 | 1.00 | 1.000 | 15 |\n",
		"| cooperative | 0.50 | 1.00 | 1.000 | 16 |\n",
		"| nextgen | — | — | — | 4: fitting a growth needs samples at more than one group size",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if err := WriteTable(&b, rs, "B/op"); err == nil || !strings.Contains(err.Error(), "no B/op measurements") {
		t.Errorf("a unit not measured: %v, want an error", err)
	}
}

func TestAmount(t *testing.T) {
	for _, tc := range []struct {
		v          float64
		unit, want string
	}{
		{999, "ns/op", "999 ns"},
		{1000, "ns/op", "1.00 µs"},
		{1.5e9, "cpu-ns/op", "1.50 s"},
		{3.6e12, "ns/op", "3600 s"}, // no larger unit than seconds
		{5612702, "B/op", "5.61 M"},
		{12345, "events/run", "12.3 k"},
		{8, "rebalances/run", "8.00"},
	} {
		if got := amount(tc.v, tc.unit); got != tc.want {
			t.Errorf("amount(%g, %s) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{10: "10", 1_000: "1k", 10_000: "10k", 1_000_000: "1M", 1_500: "1500"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
