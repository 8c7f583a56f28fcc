package sweeps

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// MaxRuns bounds the runs of one sweep (points × seeds × protocols): each
// run is a row kept in memory until the sweep is written.
const MaxRuns = 1_000_000_000

// Spec is what to sweep beyond the scenario's own sweep: block; the
// command line's --seeds, --vary and --protocols.
type Spec struct {
	// Seeds per grid point; 0 means the scenario's sweep.seeds, else 1.
	Seeds int
	// Vary adds variations after the scenario's; one with the path of a
	// scenario variation replaces it in place. A path may appear in Vary
	// once, however it is spelt (scenarios.OverrideTarget): every value of
	// a path belongs in one variation.
	Vary []scenarios.Variation
	// Protocols to run; empty means the scenario's protocols.
	Protocols []string
	// Seed, when not nil, replaces the scenario's seed at every grid
	// point: the first of each point's seeds. It cannot go with a
	// variation of seed.
	Seed *uint64
	// Models are the models the sweep will run under (give Run the same);
	// the scenario may name what they register. Nil means protocols.Default().
	Models sim.Models
}

// Grid is an expanded sweep: every grid point decoded and checked.
type Grid struct {
	Scenario report.SweepScenario
	// Params are the varied paths, in grid order.
	Params []string
	// Points are the Cartesian product of the variations' values, the
	// first path changing slowest.
	Points    []Point
	Seeds     int
	Protocols []string
	// Warnings are about the grid, not any one run; see report.Sweep.
	Warnings []string
}

// Point is one grid point.
type Point struct {
	// Values are the point's values of Grid.Params, as written.
	Values []string
	// Scenario is the scenario file decoded with the point's overrides.
	Scenario *sim.Scenario
}

// Runs is the number of runs in the whole sweep.
func (g *Grid) Runs() int { return len(g.Points) * g.Seeds * len(g.Protocols) }

// Locate splits a run index into its grid point, seed position and
// protocol position (see the package comment for the order).
func (g *Grid) Locate(run int) (point, seed, protocol int) {
	return locate(run, g.Seeds, len(g.Protocols))
}

func locate(run, seeds, protocols int) (point, seed, protocol int) {
	protocol = run % protocols
	run /= protocols
	return run / seeds, run % seeds, protocol
}

// Label names grid point i by its values: "members=10, session_timeout=10s".
func (g *Grid) Label(i int) string { return pointLabel(g.Params, g.Points[i].Values) }

func pointLabel(params, values []string) string {
	if len(params) == 0 {
		return "the scenario as written"
	}
	parts := make([]string, len(params))
	for j, p := range params {
		parts[j] = p + "=" + values[j]
	}
	return strings.Join(parts, ", ")
}

// Expand decodes the scenario in data (named source in messages) at every
// point of the grid that its sweep: block and spec describe. It fails on
// the first grid point the loader rejects, naming the point and the file
// position, before anything runs.
func Expand(source string, data []byte, spec Spec) (*Grid, error) {
	loader := scenarios.Loader{Models: spec.Models}
	base, err := loader.Parse(source, data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	g := &Grid{
		Scenario: report.SweepScenario{Name: base.Name, Description: base.Description, Source: base.Source, SHA256: hex.EncodeToString(sum[:])},
		Seeds:    spec.Seeds,
	}
	var vary []scenarios.Variation
	if base.Sweep != nil {
		vary = slices.Clone(base.Sweep.Vary)
		if g.Seeds == 0 {
			g.Seeds = base.Sweep.Seeds
		}
	}
	if g.Seeds == 0 {
		g.Seeds = 1
	}
	if g.Seeds < 0 {
		return nil, fmt.Errorf("seeds must be at least 1, found %d", g.Seeds)
	}
	for i, v := range spec.Vary {
		if len(v.Values) == 0 {
			return nil, fmt.Errorf("--vary %s lists no values", v.Path)
		}
		same := func(o scenarios.Variation) bool {
			return scenarios.OverrideTarget(o.Path) == scenarios.OverrideTarget(v.Path)
		}
		if j := slices.IndexFunc(spec.Vary[:i], same); j >= 0 {
			return nil, fmt.Errorf("--vary %s is given twice (%s=%s, then %s=%s): list every value of a path in one --vary",
				scenarios.OverrideTarget(v.Path), spec.Vary[j].Path, strings.Join(spec.Vary[j].Values, ","), v.Path, strings.Join(v.Values, ","))
		}
		if i := slices.IndexFunc(vary, same); i >= 0 {
			vary[i] = v
		} else {
			vary = append(vary, v)
		}
	}
	if spec.Seed != nil && slices.ContainsFunc(vary, func(v scenarios.Variation) bool { return scenarios.OverrideTarget(v.Path) == "seed" }) {
		return nil, fmt.Errorf("the seed is both set (--seed %d) and varied (seed=...): give one of them", *spec.Seed)
	}
	if g.Protocols, err = rebalsim.ProtocolsFor(base.Scenario, spec.Protocols, spec.Models); err != nil {
		return nil, err
	}
	for i, p := range g.Protocols {
		if slices.Contains(g.Protocols[:i], p) {
			return nil, fmt.Errorf("protocol %s is listed twice", p)
		}
	}
	points := 1
	for _, v := range vary {
		g.Params = append(g.Params, v.Path)
		if points > MaxRuns/len(v.Values) {
			return nil, fmt.Errorf("the grid has more than %d points", MaxRuns)
		}
		points *= len(v.Values)
	}
	if points > MaxRuns/g.Seeds/len(g.Protocols) {
		return nil, fmt.Errorf("the sweep has %d points × %d seeds × %d protocols, more than %d runs", points, g.Seeds, len(g.Protocols), MaxRuns)
	}
	g.Points = make([]Point, points)
	var warnings []string
	for i := range g.Points {
		values := make([]string, len(vary))
		overrides := make([]scenarios.Override, len(vary))
		rest := i
		for j := len(vary) - 1; j >= 0; j-- {
			values[j] = vary[j].Values[rest%len(vary[j].Values)]
			rest /= len(vary[j].Values)
			overrides[j] = scenarios.Override{Path: vary[j].Path, Value: values[j]}
		}
		g.Points[i].Values = values
		sc, err := loader.ParseWith(source, data, overrides)
		if err != nil {
			return nil, fmt.Errorf("grid point %d (%s): %w", i, g.Label(i), err)
		}
		if spec.Seed != nil {
			sc.Seed = *spec.Seed
		}
		g.Points[i].Scenario = sc.Scenario
		for _, w := range scenarios.Warnings(sc.Scenario) {
			warnings = append(warnings, g.Label(i)+": "+w)
		}
	}
	g.Warnings = capWarnings(warnings)
	return g, nil
}

// maxWarnings bounds the warnings listed; a large grid would repeat one
// per point.
const maxWarnings = 20

func capWarnings(ws []string) []string {
	if len(ws) <= maxWarnings {
		return ws
	}
	return append(ws[:maxWarnings-1:maxWarnings-1], fmt.Sprintf("… and %d more warnings like these", len(ws)-(maxWarnings-1)))
}

// ParseVary reads a --vary flag, path=v1,v2,...: commas inside [], {} or
// quotes do not split, so "defaults.assignors=[range],[cooperative-sticky]"
// is two values.
func ParseVary(s string) (scenarios.Variation, error) {
	path, list, ok := strings.Cut(s, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" || strings.TrimSpace(list) == "" {
		return scenarios.Variation{}, fmt.Errorf("--vary %q: write path=v1,v2,..., such as members=10,50,100", s)
	}
	var values []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i <= len(list); i++ {
		if i == len(list) || (list[i] == ',' && depth == 0 && quote == 0) {
			v := strings.TrimSpace(list[start:i])
			if v == "" {
				return scenarios.Variation{}, fmt.Errorf("--vary %q: value %d is empty", s, len(values)+1)
			}
			if slices.Contains(values, v) {
				return scenarios.Variation{}, fmt.Errorf("--vary %q: value %s appears twice, which would run the same grid point twice", s, v)
			}
			values = append(values, v)
			start = i + 1
			continue
		}
		switch c := list[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	if _, err := scenarios.ParseOverride(path + "=" + values[0]); err != nil {
		return scenarios.Variation{}, fmt.Errorf("--vary %q: %w", s, err)
	}
	return scenarios.Variation{Path: path, Values: values}, nil
}
