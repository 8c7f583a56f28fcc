package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestSkewKeepsTheRateAndIsDrawnFromTheSeed: a zipf skew over 10
// partitions gives them the weights 1/k^s (k = 1…10) in some order, scaled
// so that their mean is the topic's rate; the order comes from the seed,
// so the same seed gives the same rates and another seed (usually) others.
func TestSkewKeepsTheRateAndIsDrawnFromTheSeed(t *testing.T) {
	spec := TopicSpec{Name: "t", Partitions: 10, Rate: 100, Skew: &Skew{Dist: "zipf", S: 1.1}}
	a := newTopicLoad(spec, newStreams(1)).rates
	b := newTopicLoad(spec, newStreams(1)).rates
	c := newTopicLoad(spec, newStreams(2)).rates
	if !slices.Equal(a, b) {
		t.Errorf("one seed, two draws: %v and %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 1 and 2 drew the same rates %v", a)
	}
	sum, norm := 0.0, 0.0
	for k := 1; k <= 10; k++ {
		norm += math.Pow(float64(k), -1.1)
	}
	sorted := slices.Clone(a)
	slices.Sort(sorted)
	for i, r := range sorted {
		sum += r
		want := 1000 * math.Pow(float64(10-i), -1.1) / norm
		if math.Abs(r-want) > 1e-9 {
			t.Errorf("rate %d = %v, want %v", i, r, want)
		}
	}
	if math.Abs(sum-1000) > 1e-9 {
		t.Errorf("rates sum to %v, want 10 × 100", sum)
	}
	hot := newTopicLoad(TopicSpec{Name: "t", Partitions: 4, Rate: 100, Rates: []float64{5, 6}, Hot: &HotPartitions{Partitions: []int32{3}, Rate: 900}}, newStreams(1)).rates
	if !slices.Equal(hot, []float64{5, 6, 100, 900}) {
		t.Errorf("rates [5, 6] with partition 3 hot at 900 gave %v", hot)
	}
}

// TestLoadCurveInverts: the integral of the factor and its inverse agree
// across steps (factor 1 until 10s, 3 until 20s, 0.5 after).
func TestLoadCurveInverts(t *testing.T) {
	c := newLoadCurve([]LoadStep{{At: 10e9, Factor: 3}, {At: 20e9, Factor: 0.5}})
	for _, x := range []struct{ t, m float64 }{{5, 5}, {10, 10}, {15, 25}, {20, 40}, {30, 45}} {
		if got := c.m(x.t); math.Abs(got-x.m) > 1e-12 {
			t.Errorf("m(%v) = %v, want %v", x.t, got, x.m)
		}
		if got := c.inv(x.m); math.Abs(got-x.t) > 1e-12 {
			t.Errorf("inv(%v) = %v, want %v", x.m, got, x.t)
		}
	}
}

// TestLoadCurveBreaks: the breaks between two integrals are the curve's
// step starts strictly between them, in order, from the one-step curve of
// a topic without load steps as from one with steps; checked against
// every start in turn, and an append to the answer leaves the curve as
// it was.
func TestLoadCurveBreaks(t *testing.T) {
	stepped := newLoadCurve([]LoadStep{{At: 10e9, Factor: 3}, {At: 20e9, Factor: 0.5}}) // cum 0, 10, 40
	flat := newLoadCurve(nil)                                                           // cum 0
	for _, x := range []struct {
		c      *loadCurve
		u0, u1 float64
		want   []float64
	}{
		{stepped, 5, 45, []float64{10, 40}},
		{stepped, 10, 40, nil}, // strictly between: neither end counts
		{stepped, 10, 40.5, []float64{40}},
		{stepped, -1, 5, []float64{0}},
		{stepped, 41, 50, nil},
		{stepped, 20, 15, nil},
		{flat, -1, 1, []float64{0}},
		{flat, 0, 1, nil},
		{flat, 1, 2, nil},
	} {
		got := x.c.breaks(x.u0, x.u1)
		if !slices.Equal(got, x.want) {
			t.Errorf("breaks(%v, %v) of cum %v = %v, want %v", x.u0, x.u1, x.c.cum, got, x.want)
		}
		_ = append(got, 99)
	}
	if !slices.Equal(stepped.cum, []float64{0, 10, 40}) || !slices.Equal(flat.cum, []float64{0}) {
		t.Errorf("an append to breaks changed the curves: %v and %v", stepped.cum, flat.cum)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		u0, u1 := r.Float64()*60-5, r.Float64()*60-5
		for _, c := range []*loadCurve{stepped, flat} {
			var want []float64
			for _, u := range c.cum {
				if u > u0 && u < u1 {
					want = append(want, u)
				}
			}
			if got := c.breaks(u0, u1); !slices.Equal(got, want) {
				t.Fatalf("breaks(%v, %v) of cum %v = %v, want %v", u0, u1, c.cum, got, want)
			}
		}
	}
}

// TestLoadCurveOneStep: a topic without load steps produces at its base
// rate throughout, so the integral is the time and the inverse the
// position, and the factor is 1 at every instant.
func TestLoadCurveOneStep(t *testing.T) {
	c := newLoadCurve(nil)
	for _, x := range []float64{0, 0.5, 7, 1e6} {
		if got := c.m(x); got != x {
			t.Errorf("m(%v) = %v, want %v", x, got, x)
		}
		if got := c.inv(x); got != x {
			t.Errorf("inv(%v) = %v, want %v", x, got, x)
		}
		if got := c.factorAt(time.Duration(x * 1e9)); got != 1 {
			t.Errorf("factorAt(%vs) = %v, want 1", x, got)
		}
	}
}
