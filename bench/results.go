package bench

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rebalsim/rebalsim/sim"
)

// benchmarkName is BenchmarkScaling's name as `go test -bench` prints it.
const benchmarkName = "BenchmarkScaling"

// Result is one line of BenchmarkScaling's output: a point and what was
// measured there, by unit ("ns/op", "cpu-ns/op", "B/op", "events/run").
type Result struct {
	Point
	Values map[string]float64
}

// ParseResults reads the output of `go test -bench Scaling` (source names
// it in errors) and returns its BenchmarkScaling lines in order. Every
// other line (goos:, pkg:, PASS, other benchmarks) is passed over; a
// BenchmarkScaling line that cannot be read is an error naming its line
// and column, and so is a failed point (the table would be silently
// short of it).
func ParseResults(source string, r io.Reader) ([]Result, error) {
	var out []Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		res, ok, err := parseLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s:%d:%w", source, line, err)
		}
		if ok {
			out = append(out, res)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", source, err)
	}
	return out, nil
}

// field is a word of a line and the byte column (1-based) it starts at.
type field struct {
	text string
	col  int
}

func fields(s string) []field {
	var fs []field
	start := -1
	for i, c := range s {
		space := c == ' ' || c == '\t'
		switch {
		case !space && start < 0:
			start = i
		case space && start >= 0:
			fs = append(fs, field{s[start:i], start + 1})
			start = -1
		}
	}
	if start >= 0 {
		fs = append(fs, field{s[start:], start + 1})
	}
	return fs
}

// lineError is an error at a column of a line; ParseResults puts the
// source and line number before it.
func lineError(col int, format string, args ...any) error {
	return fmt.Errorf("%d: %s", col, fmt.Sprintf(format, args...))
}

// parseLine reads one line: "BenchmarkScaling/protocol=P/members=M/
// partitions=N-GOMAXPROCS  iterations  value unit  value unit ...".
func parseLine(s string) (Result, bool, error) {
	fs := fields(s)
	// A point that fails at once is reported on a line of its own.
	if len(fs) >= 3 && fs[0].text == "---" && fs[1].text == "FAIL:" && strings.HasPrefix(fs[2].text, benchmarkName+"/") {
		p, err := parseName(fs[2])
		if err != nil {
			return Result{}, false, err
		}
		return Result{}, false, lineError(fs[0].col, "%s failed: the lines after it say why", p.Name())
	}
	if len(fs) == 0 || !strings.HasPrefix(fs[0].text, benchmarkName+"/") {
		return Result{}, false, nil
	}
	p, err := parseName(fs[0])
	if err != nil {
		return Result{}, false, err
	}
	if len(fs) < 2 {
		return Result{}, false, lineError(fs[0].col+len(fs[0].text), "want the iteration count and measurements after the name, found the end of the line")
	}
	if fs[1].text == "---" {
		return Result{}, false, lineError(fs[1].col, "%s did not finish (%s): the lines after it say why", p.Name(), strings.TrimSpace(s[fs[1].col-1:]))
	}
	if n, err := strconv.Atoi(fs[1].text); err != nil || n <= 0 {
		return Result{}, false, lineError(fs[1].col, "want the iteration count, a positive integer, found %q", fs[1].text)
	}
	rest := fs[2:]
	if len(rest)%2 != 0 {
		last := rest[len(rest)-1]
		return Result{}, false, lineError(last.col+len(last.text), "want a unit after %q, found the end of the line", last.text)
	}
	res := Result{Point: p, Values: map[string]float64{}}
	for i := 0; i < len(rest); i += 2 {
		v, unit := rest[i], rest[i+1]
		x, err := strconv.ParseFloat(v.text, 64)
		if err != nil {
			return Result{}, false, lineError(v.col, "want a number before %q, found %q", unit.text, v.text)
		}
		if _, dup := res.Values[unit.text]; dup {
			return Result{}, false, lineError(unit.col, "%q is measured twice on one line", unit.text)
		}
		res.Values[unit.text] = x
	}
	if _, ok := res.Values["ns/op"]; !ok {
		return Result{}, false, lineError(fs[1].col, "want a ns/op measurement, found units %s", strings.Join(units(res.Values), ", "))
	}
	return res, true, nil
}

// parseName reads the point out of a sub-benchmark's name, as Point.Name
// writes it, with the -GOMAXPROCS suffix go test adds when it is above 1.
func parseName(f field) (Point, error) {
	name := strings.TrimPrefix(f.text, benchmarkName+"/")
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	col := f.col + len(benchmarkName) + 1
	var p Point
	seen := map[string]bool{}
	for _, part := range strings.Split(name, "/") {
		key, val, ok := strings.Cut(part, "=")
		switch {
		case !ok:
			return Point{}, lineError(col, "want key=value (protocol, members or partitions), found %q", part)
		case seen[key]:
			return Point{}, lineError(col, "%s is given twice", key)
		}
		seen[key] = true
		var err error
		switch key {
		case "protocol":
			if !slices.Contains(sim.Protocols(), val) {
				err = fmt.Errorf("want a protocol (%s), found %q", strings.Join(sim.Protocols(), ", "), val)
			}
			p.Protocol = val
		case "members":
			p.Members, err = size(key, val)
		case "partitions":
			p.Partitions, err = size(key, val)
		default:
			err = fmt.Errorf("want protocol, members or partitions, found %q", key)
		}
		if err != nil {
			return Point{}, lineError(col, "%v", err)
		}
		col += len(part) + 1
	}
	for _, key := range []string{"protocol", "members", "partitions"} {
		if !seen[key] {
			return Point{}, lineError(f.col, "the name %q lacks %s=", f.text, key)
		}
	}
	return p, nil
}

func size(key, val string) (int, error) {
	n, err := strconv.Atoi(val)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want %s, a positive integer, found %q", key, val)
	}
	return n, nil
}

// units lists a result's units in order, for messages.
func units(values map[string]float64) []string {
	us := make([]string, 0, len(values))
	for u := range values {
		us = append(us, u)
	}
	sort.Strings(us)
	return us
}

// Medians gives, for every point measured in unit, the median of its
// lines (go test -count repeats each point).
func Medians(results []Result, unit string) map[Point]float64 {
	byPoint := map[Point][]float64{}
	for _, r := range results {
		if v, ok := r.Values[unit]; ok {
			byPoint[r.Point] = append(byPoint[r.Point], v)
		}
	}
	med := make(map[Point]float64, len(byPoint))
	for p, vs := range byPoint {
		sort.Float64s(vs)
		if n := len(vs); n%2 == 1 {
			med[p] = vs[n/2]
		} else {
			med[p] = (vs[n/2-1] + vs[n/2]) / 2
		}
	}
	return med
}
