package report

import (
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

// TestEveryMetricIsACost holds the report to what its tables assume: the
// best value of a row is the lowest, so every metric must be one where
// lower is better. A metric where higher is better needs markBest to ask
// the table first.
func TestEveryMetricIsACost(t *testing.T) {
	for _, m := range sim.MetricTable() {
		if m.Better != sim.LowerIsBetter {
			t.Errorf("%s: %s is better, but the report marks the lowest value as best", m.Name, m.Better)
		}
	}
}
