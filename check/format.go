package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

func boundKey(b scenarios.Bound) string {
	if b.IsMax {
		return "max_" + b.Metric
	}
	return "min_" + b.Metric
}

func boundValue(b scenarios.Bound) string {
	if b.FractionOf != "" {
		return fmt.Sprintf("{fraction_of: %s, value: %s}", b.FractionOf, fmtNum(b.Value))
	}
	return fmtNum(b.Value)
}

// boundText says what a bound requires: "≤ 3", "≥ 40", "≤ 0.5 × eager's".
func boundText(b scenarios.Bound) string {
	op := "≥"
	if b.IsMax {
		op = "≤"
	}
	if b.FractionOf != "" {
		return fmt.Sprintf("%s %s × %s's", op, fmtNum(b.Value), b.FractionOf)
	}
	return op + " " + fmtNum(b.Value)
}

// traceCommand is the command that reruns a case's seed with a trace,
// under the case's protocol and the one a comparison refers to.
func traceCommand(sc *sim.Scenario, protos []string, seed uint64, shuffled bool) string {
	shuffle := ""
	if shuffled {
		shuffle = " --shuffle-ties"
	}
	out := fmt.Sprintf("rebalsim-trace/%s-%s-%d", safeName(sc.Name), protos[0], seed)
	return fmt.Sprintf("rebalsim run %s --protocol %s --seed %d%s --trace --out %s",
		shellQuote(sc.Source), strings.Join(protos, ","), seed, shuffle, shellQuote(out))
}

// safeName makes a scenario name safe as part of a file name: characters
// other than letters, digits, '-', '_' and '.' become '_', and a name of
// dots alone gets a leading '_'.
func safeName(name string) string {
	safe := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
	if strings.Trim(safe, ".") == "" {
		safe = "_" + safe
	}
	return safe
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:,=+@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fmtNum renders a metric with at most three decimals.
func fmtNum(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

func fmtSeconds(v float64) string { return fmtNum(v) + "s" }

// list joins names, keeping the first limit and counting the rest.
func list(names []string, limit int) string {
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … (%d in all)", strings.Join(names[:limit], ", "), len(names))
}
