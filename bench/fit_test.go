package bench

import (
	"math"
	"strings"
	"testing"
)

// powerLaw samples c × m^a × n^b over the whole grid.
func powerLaw(c, a, b float64) []Sample {
	var s []Sample
	for _, m := range gridMembers {
		for _, n := range gridPartitions {
			s = append(s, Sample{m, n, c * math.Pow(float64(m), a) * math.Pow(float64(n), b)})
		}
	}
	return s
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want)) }

// TestFitGrowthPowerLaws: costs that are exactly c × m^a × n^b give back
// c, a and b, and R² = 1, whatever the exponents' signs and sizes.
func TestFitGrowthPowerLaws(t *testing.T) {
	for _, tc := range []struct {
		name    string
		c, a, b float64
	}{
		{"linear in both", 3e-6, 1, 1},
		{"quadratic in partitions", 0.5, 0.5, 2},
		{"members do not matter", 7, 0, 1},
		{"falling with members", 1, -0.3, 0.25},
		{"nanoseconds of a large run", 2.5e4, 1.2, 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := FitGrowth(powerLaw(tc.c, tc.a, tc.b))
			if err != nil {
				t.Fatal(err)
			}
			// C is compared relatively: it spans ten orders of magnitude here.
			if !near(g.A, tc.a, 1e-9) || !near(g.B, tc.b, 1e-9) || math.Abs(g.C/tc.c-1) > 1e-9 {
				t.Errorf("fit C=%g a=%g b=%g, want C=%g a=%g b=%g", g.C, g.A, g.B, tc.c, tc.a, tc.b)
			}
			if !near(g.R2, 1, 1e-12) || g.Points != 16 {
				t.Errorf("R² %g over %d points, want 1 over the grid's 16", g.R2, g.Points)
			}
		})
	}
}

// TestFitGrowthThreePoints: three points not on one line fix the plane
// exactly: cost 10 at (10, 10), 100 at (100, 10) (a = 1: ten times the
// members, ten times the cost) and 1,000 at (10, 1,000) (b = 1: a hundred
// times the partitions, a hundred times the cost), so C = 10/(10·10) = 0.1.
func TestFitGrowthThreePoints(t *testing.T) {
	g, err := FitGrowth([]Sample{{10, 10, 10}, {100, 10, 100}, {10, 1000, 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if !near(g.A, 1, 1e-12) || !near(g.B, 1, 1e-12) || !near(g.C, 0.1, 1e-12) || !near(g.R2, 1, 1e-12) {
		t.Errorf("fit %+v, want C=0.1 a=1 b=1 R²=1", g)
	}
}

// TestFitGrowthOrthogonalNoise: on the 2×2 grid m, n ∈ {1, 10}, a
// multiplicative error of e^+d at (1, 1) and (10, 10) and e^-d at the other
// two corners is orthogonal to the intercept and both logarithms, so least
// squares still returns a and b exactly. Each residual is ±d, so SSres =
// 4d², and with L = ln 10 the centred logarithms are ±L/2, so SStot =
// 4((aL/2)² + (bL/2)² + d²) (the cross terms cancel by the same
// orthogonality): R² = ((aL/2)² + (bL/2)²) / ((aL/2)² + (bL/2)² + d²).
func TestFitGrowthOrthogonalNoise(t *testing.T) {
	const a, b, d = 0.8, 1.5, 0.3
	var s []Sample
	for _, m := range []int{1, 10} {
		for _, n := range []int{1, 10} {
			sign := 1.0
			if (m == 1) != (n == 1) {
				sign = -1
			}
			s = append(s, Sample{m, n, math.Pow(float64(m), a) * math.Pow(float64(n), b) * math.Exp(sign*d)})
		}
	}
	g, err := FitGrowth(s)
	if err != nil {
		t.Fatal(err)
	}
	half := math.Ln10 / 2
	signal := (a*half)*(a*half) + (b*half)*(b*half)
	wantR2 := signal / (signal + d*d)
	if !near(g.A, a, 1e-12) || !near(g.B, b, 1e-12) || !near(g.C, 1, 1e-12) || !near(g.R2, wantR2, 1e-12) {
		t.Errorf("fit %+v, want C=1 a=%g b=%g R²=%g", g, a, b, wantR2)
	}
}

// TestFitGrowthRejects: a fit that cannot tell the exponents apart, or is
// given costs without a logarithm, is an error, not a number.
func TestFitGrowthRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples []Sample
		want    string
	}{
		{"two samples", []Sample{{10, 10, 1}, {100, 100, 2}}, "at least 3 samples, found 2"},
		{"one group size", []Sample{{10, 10, 1}, {10, 100, 2}, {10, 1000, 3}}, "more than one group size"},
		{"one partition count", []Sample{{10, 10, 1}, {100, 10, 2}, {1000, 10, 3}}, "more than one group size"},
		{"sizes in proportion", []Sample{{10, 100, 1}, {100, 1000, 2}, {1000, 10000, 3}}, "not all in proportion"},
		{"zero cost", []Sample{{10, 10, 1}, {100, 10, 0}, {10, 100, 3}}, "sample 2 (members=100, partitions=10, cost 0)"},
		{"not a number", []Sample{{10, 10, 1}, {100, 10, 2}, {10, 100, math.NaN()}}, "sample 3"},
		{"infinite", []Sample{{10, 10, math.Inf(1)}, {100, 10, 2}, {10, 100, 3}}, "sample 1"},
		{"no members", []Sample{{0, 10, 1}, {100, 10, 2}, {10, 100, 3}}, "must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := FitGrowth(tc.samples)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("FitGrowth = %+v, %v; want an error containing %q", g, err, tc.want)
			}
		})
	}
}
