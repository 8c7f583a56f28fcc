package check

import (
	"fmt"
	"strings"

	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// verdicts are what a tie order must not change: safety, convergence at
// the horizon, and each converged_within check of the protocol.
type verdicts struct {
	safe      bool
	converged bool
	within    []Status
}

func (p *plan) verdictsOf(r *sim.Result, proto string) verdicts {
	v := verdicts{safe: judgeSafety(r).status == Pass, converged: r.Metrics.Converged}
	for _, x := range p.sc.Expect {
		if x.ConvergedWithin != nil && appliesTo(x, proto) {
			v.within = append(v.within, judgeConvergence(*x.ConvergedWithin, r).status)
		}
	}
	return v
}

// tieOrderOutcome compares, on one seed, the verdicts of the run with
// ties in sequence order and the run with ties shuffled.
func (p *plan) tieOrderOutcome(proto string, ordered, shuffled *sim.Result) outcome {
	a, b := p.verdictsOf(ordered, proto), p.verdictsOf(shuffled, proto)
	o := outcome{status: Pass, measured: "the same verdicts in both orders"}
	var changes []string
	if a.safe != b.safe {
		changes = append(changes, fmt.Sprintf("safety: %s ordered, %s shuffled", safeWord(a.safe), safeWord(b.safe)))
		bad := ordered
		if a.safe {
			bad = shuffled
		}
		so := judgeSafety(bad)
		o.at, o.atLabel, o.hasAt = so.at, so.atLabel, true
	}
	if a.converged != b.converged {
		changes = append(changes, fmt.Sprintf("convergence at the horizon: %s ordered, %s shuffled", convergedWord(a.converged), convergedWord(b.converged)))
	}
	within := 0
	for _, x := range p.sc.Expect {
		if x.ConvergedWithin == nil || !appliesTo(x, proto) {
			continue
		}
		if a.within[within] != b.within[within] {
			changes = append(changes, fmt.Sprintf("converged_within: %s (line %d): %s ordered, %s shuffled",
				scenarios.FormatDuration(*x.ConvergedWithin), x.Line, a.within[within], b.within[within]))
		}
		within++
	}
	if len(changes) > 0 {
		o.status, o.shuffled, o.badness = Fail, true, float64(len(changes))
		o.measured = strings.Join(changes, "; ")
		o.detail = "rerun the trace command without --shuffle-ties and compare"
		if !o.hasAt {
			o.at, o.atLabel, o.hasAt = firstConvergenceDifference(ordered, shuffled)
		}
	}
	return o
}

// firstConvergenceDifference finds the earliest disturbance whose
// convergence differs between two runs of one scenario.
func firstConvergenceDifference(a, b *sim.Result) (float64, string, bool) {
	for i := range min(len(a.Convergence), len(b.Convergence)) {
		ca, cb := a.Convergence[i], b.Convergence[i]
		if ca.Converged != cb.Converged || ca.Seconds != cb.Seconds {
			return ca.At, ca.Disturbance, true
		}
	}
	return a.WindowEnd, "the horizon", true
}

func safeWord(safe bool) string {
	if safe {
		return "no double ownership"
	}
	return "double ownership"
}

func convergedWord(ok bool) string {
	if ok {
		return "converged"
	}
	return "not converged"
}
