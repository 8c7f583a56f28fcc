package bench

import (
	"strings"
	"testing"
)

// sampleOutput is go test -bench output as it comes: a header, one point
// run twice (-count 2), a point without the GOMAXPROCS suffix (go test
// leaves it off at GOMAXPROCS=1), another package's benchmark, and the
// trailer.
const sampleOutput = `goos: linux
goarch: amd64
pkg: github.com/rebalsim/rebalsim/bench
cpu: Intel(R) Xeon(R) Processor
BenchmarkScaling/protocol=eager/members=10/partitions=1000-2         	      50	  26777207 ns/op	  18197220 cpu-ns/op	      3641 events/run	         8.000 rebalances/run	 5612702 B/op	   14856 allocs/op
BenchmarkScaling/protocol=eager/members=10/partitions=1000-2         	      40	  30000000 ns/op	  20000000 cpu-ns/op	      3641 events/run	         8.000 rebalances/run	 5612702 B/op	   14856 allocs/op
BenchmarkScaling/protocol=nextgen/members=10000/partitions=1000000   	       1	6560000000 ns/op
BenchmarkRollingRestart500/eager-2 	       3	 400000000 ns/op
PASS
ok  	github.com/rebalsim/rebalsim/bench	15.119s
`

func TestParseResults(t *testing.T) {
	rs, err := ParseResults("scaling.txt", strings.NewReader(sampleOutput))
	if err != nil {
		t.Fatal(err)
	}
	// Three BenchmarkScaling lines; the header, BenchmarkRollingRestart500
	// and the trailer are passed over.
	if len(rs) != 3 {
		t.Fatalf("got %d results, want 3: %+v", len(rs), rs)
	}
	eager := Point{"eager", 10, 1000}
	if rs[0].Point != eager || rs[1].Point != eager || rs[2].Point != (Point{"nextgen", 10000, 1000000}) {
		t.Errorf("points %v, %v, %v", rs[0].Point, rs[1].Point, rs[2].Point)
	}
	want := map[string]float64{"ns/op": 26777207, "cpu-ns/op": 18197220, "events/run": 3641, "rebalances/run": 8, "B/op": 5612702, "allocs/op": 14856}
	for unit, v := range want {
		if rs[0].Values[unit] != v {
			t.Errorf("%s = %g, want %g", unit, rs[0].Values[unit], v)
		}
	}
	if len(rs[0].Values) != len(want) || len(rs[2].Values) != 1 {
		t.Errorf("units %v and %v, want the six written and ns/op alone", units(rs[0].Values), units(rs[2].Values))
	}
	// The eager point ran twice: its median is the mean of the two middle
	// (the only two) values; the nextgen point has only its one.
	med := Medians(rs, "ns/op")
	if med[eager] != (26777207+30000000)/2.0 || med[Point{"nextgen", 10000, 1000000}] != 6.56e9 || len(med) != 2 {
		t.Errorf("medians %v", med)
	}
	// cpu-ns/op was not measured at the nextgen point: it has no median.
	if cpu := Medians(rs, "cpu-ns/op"); len(cpu) != 1 || cpu[eager] != 19098610 {
		t.Errorf("cpu medians %v, want only eager's 19098610", cpu)
	}
}

// TestMediansOdd: of three runs the middle one counts, whatever their order.
func TestMediansOdd(t *testing.T) {
	p := Point{"cooperative", 100, 10000}
	rs := []Result{{p, map[string]float64{"ns/op": 9}}, {p, map[string]float64{"ns/op": 1}}, {p, map[string]float64{"ns/op": 4}}}
	if got := Medians(rs, "ns/op")[p]; got != 4 {
		t.Errorf("median %g, want 4", got)
	}
}

// TestParseResultsErrors: a BenchmarkScaling line that cannot be read
// names the source, the line and the column of what is wrong.
func TestParseResultsErrors(t *testing.T) {
	const name = "BenchmarkScaling/protocol=eager/members=10/partitions=1000-2"
	for _, tc := range []struct {
		line, want string
	}{
		// The line is the second of the input, after "goos: linux";
		// the name is 60 characters, so its first field after is at
		// column 62.
		{name + " 50 12 ns/op", ""},
		{name, "x.txt:2:61: want the iteration count and measurements after the name"},
		{name + " --- FAIL: " + name, "x.txt:2:62: protocol=eager/members=10/partitions=1000 did not finish (--- FAIL: "},
		{name + " fifty 12 ns/op", "x.txt:2:62: want the iteration count, a positive integer, found \"fifty\""},
		{name + " 50 12", "x.txt:2:67: want a unit after \"12\""},
		{name + " 50 twelve ns/op", "x.txt:2:65: want a number before \"ns/op\", found \"twelve\""},
		{name + " 50 12 ns/op 13 ns/op", "x.txt:2:77: \"ns/op\" is measured twice"},
		{name + " 50 12 B/op", "x.txt:2:62: want a ns/op measurement, found units B/op"},
		{"BenchmarkScaling/protocol=lazy/members=10/partitions=1000 1 2 ns/op", "x.txt:2:18: want a protocol (eager, cooperative, nextgen), found \"lazy\""},
		{"BenchmarkScaling/protocol=eager/members=ten/partitions=1000 1 2 ns/op", "x.txt:2:33: want members, a positive integer, found \"ten\""},
		{"BenchmarkScaling/protocol=eager/members=0/partitions=1000 1 2 ns/op", "x.txt:2:33: want members, a positive integer, found \"0\""},
		{"BenchmarkScaling/protocol=eager/members=10/partitions=1000/seeds=3 1 2 ns/op", "x.txt:2:60: want protocol, members or partitions, found \"seeds\""},
		{"BenchmarkScaling/protocol=eager/members=10/members=20 1 2 ns/op", "x.txt:2:44: members is given twice"},
		{"BenchmarkScaling/protocol=eager/10/partitions=1000 1 2 ns/op", "x.txt:2:33: want key=value (protocol, members or partitions), found \"10\""},
		{"BenchmarkScaling/protocol=eager/partitions=1000 1 2 ns/op", "x.txt:2:1: the name \"BenchmarkScaling/protocol=eager/partitions=1000\" lacks members="},
		{"--- FAIL: BenchmarkScaling/protocol=eager/members=10/partitions=1000", "x.txt:2:1: protocol=eager/members=10/partitions=1000 failed: the lines after it say why"},
		{"--- FAIL: BenchmarkScaling", ""}, // the parent's summary line, after its points' own
		{"\t" + name + " 50 12 ns/op 13", "x.txt:2:77: want a unit after \"13\""},
	} {
		_, err := ParseResults("x.txt", strings.NewReader("goos: linux\n"+tc.line+"\n"))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.line, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%q:\n got %v\nwant %s…", tc.line, err, tc.want)
		}
	}
}
