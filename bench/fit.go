package bench

import (
	"errors"
	"fmt"
	"math"
)

// Sample is one measured cost at a group size and partition count.
type Sample struct {
	Members, Partitions int
	Cost                float64
}

// Growth is a cost fitted to C × members^A × partitions^B: A and B are the
// slopes of the cost on log-log axes, so a tenfold group costs 10^A times
// as much, all else equal (A = 1 is linear, 2 quadratic).
type Growth struct {
	C, A, B float64
	// R2 is the share of the variance of log(cost) the fit explains: 1
	// when the points lie on the power law, lower when the growth bends.
	R2 float64
	// Points is how many samples the fit used.
	Points int
}

// FitGrowth fits log(cost) = log(C) + A·log(members) + B·log(partitions)
// by ordinary least squares. It needs at least three samples, positive
// costs and sizes, and more than one value of each size, not all on one
// line through the grid (a diagonal cannot tell members from partitions).
func FitGrowth(samples []Sample) (Growth, error) {
	if len(samples) < 3 {
		return Growth{}, fmt.Errorf("fitting a growth needs at least 3 samples, found %d", len(samples))
	}
	xm := make([]float64, len(samples))
	xn := make([]float64, len(samples))
	y := make([]float64, len(samples))
	for i, s := range samples {
		if s.Members <= 0 || s.Partitions <= 0 || !(s.Cost > 0) || math.IsInf(s.Cost, 0) {
			return Growth{}, fmt.Errorf("sample %d (members=%d, partitions=%d, cost %v): sizes and cost must be positive and finite", i+1, s.Members, s.Partitions, s.Cost)
		}
		xm[i], xn[i], y[i] = math.Log(float64(s.Members)), math.Log(float64(s.Partitions)), math.Log(s.Cost)
	}
	// On centred logarithms the intercept drops out and the slopes solve
	// the 2×2 normal equations [Smm Smn; Smn Snn]·[A B] = [Smy Sny].
	mm, mn, my := mean(xm), mean(xn), mean(y)
	var smm, snn, smn, smy, sny, syy float64
	for i := range y {
		dm, dn, dy := xm[i]-mm, xn[i]-mn, y[i]-my
		smm += dm * dm
		snn += dn * dn
		smn += dm * dn
		smy += dm * dy
		sny += dn * dy
		syy += dy * dy
	}
	det := smm*snn - smn*smn
	// The determinant is, up to rounding, zero exactly when one size does
	// not vary or the two vary together; compare it with its own terms
	// so that the test does not depend on the sizes' scale.
	if smm == 0 || snn == 0 || det <= 1e-9*smm*snn {
		return Growth{}, errors.New("fitting a growth needs samples at more than one group size and partition count, not all in proportion")
	}
	g := Growth{Points: len(samples)}
	g.A = (smy*snn - sny*smn) / det
	g.B = (sny*smm - smy*smn) / det
	g.C = math.Exp(my - g.A*mm - g.B*mn)
	g.R2 = 1
	if syy > 0 {
		var res float64
		for i := range y {
			r := y[i] - my - g.A*(xm[i]-mm) - g.B*(xn[i]-mn)
			res += r * r
		}
		g.R2 = 1 - res/syy
	}
	return g, nil
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
