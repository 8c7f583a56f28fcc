package check

import (
	"testing"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// TestSlimKeepsWhereBoundsBroke: a slimmed result answers whereBoundBroke
// as the whole result does, for every max_ bound of the library on the
// series metrics, at its own limit and at limits below and above it (so
// that bounds that fail are covered too), on a few seeds.
func TestSlimKeepsWhereBoundsBroke(t *testing.T) {
	checked := 0
	for _, name := range scenarios.LibraryNames() {
		sc, err := scenarios.LibraryScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		for seed := sc.Seed; seed < sc.Seed+3; seed++ {
			whole, err := runSeed(sc.Scenario, seed)
			if err != nil {
				t.Fatal(err)
			}
			// The plan slims with bounds scaled, so that the limits
			// tried below are among those it keeps samples for.
			for _, scale := range []float64{0, 0.5, 1, 2} {
				scaled := *sc
				scaled.Expect = nil
				for _, x := range sc.Expect {
					y := x
					y.Bounds = nil
					for _, b := range x.Bounds {
						b.Value *= scale
						y.Bounds = append(y.Bounds, b)
					}
					scaled.Expect = append(scaled.Expect, y)
				}
				p := &plan{sc: &scaled}
				c := copyRuns(whole)
				p.slim(c)
				for _, x := range scaled.Expect {
					for _, b := range x.Bounds {
						if !b.IsMax || seriesOf(&sim.Series{}, b.Metric) == nil || b.FractionOf != "" {
							continue
						}
						for proto, r := range whole {
							if !appliesTo(x, proto) {
								continue
							}
							at, label, ok := whereBoundBroke(r, b.Metric, b.Value, true)
							at2, label2, ok2 := whereBoundBroke(c[proto], b.Metric, b.Value, true)
							if at != at2 || label != label2 || ok != ok2 {
								t.Errorf("%s seed %d %s max_%s: %v: whole %v %q, slim %v %q", name, seed, proto, b.Metric, b.Value, at, label, at2, label2)
							}
							checked++
						}
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("the library has no max_ bound on a series metric to check")
	}
}

func runSeed(sc *sim.Scenario, seed uint64) (map[string]*sim.Result, error) {
	rep, err := rebalsim.Run(sc, rebalsim.Options{Seed: seed})
	if err != nil {
		return nil, err
	}
	out := map[string]*sim.Result{}
	for _, r := range rep.Runs {
		out[r.Protocol] = r
	}
	return out, nil
}

// copyRuns copies the results deeply enough for slim to cut the copy.
func copyRuns(runs map[string]*sim.Result) map[string]*sim.Result {
	out := map[string]*sim.Result{}
	for p, r := range runs {
		c := *r
		out[p] = &c
	}
	return out
}
