package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFairPartIsTheQuotientsMinimum holds fairPart to min(need,
// left/rest) to the bit, on random values and on those where the two
// sides of sureFit's test are closest: a need just below, at and just
// above an equal part of what is left.
func TestFairPartIsTheQuotientsMinimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(need, left float64, rest int) {
		t.Helper()
		want := min(need, left/float64(rest))
		if got := fairPart(need, left, rest); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("fairPart(%v, %v, %d) = %v, want %v", need, left, rest, got, want)
		}
	}
	for range 200000 {
		rest := 1 + rng.IntN(5000)
		left := rng.Float64() * math.Pow(10, float64(rng.IntN(12)-3))
		part := left / float64(rest)
		for _, need := range []float64{
			0, part, math.Nextafter(part, 0), math.Nextafter(part, math.Inf(1)),
			part * (1 - 0x1p-41), part * (1 - 0x1p-39), part * rng.Float64(), part * (1 + rng.Float64()),
		} {
			check(need, left, rest)
		}
		check(rng.Float64(), 0, rest)
		check(rng.Float64(), -rng.Float64(), rest)
		check(0, -rng.Float64(), rest)
	}
}
