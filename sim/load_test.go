package sim

import (
	"math"
	"slices"
	"testing"
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
