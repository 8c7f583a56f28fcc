package scenarios

import (
	"fmt"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// Warnings lists what is legal in a scenario but probably not what its
// author meant. Today that is a rolling restart that does not reach all its
// members before the horizon: the run is well defined (it measures the
// horizon's worth of the deploy) but the members after the cut never
// restart, which a reader of the results must know.
func Warnings(sc *sim.Scenario) []string {
	var out []string
	for _, ev := range sc.Events {
		n := len(ev.Members)
		if ev.Kind != sim.EventRollingRestart || n < 2 || ev.Interval <= 0 {
			continue
		}
		reached := int((sc.Duration-ev.At-1)/ev.Interval) + 1
		if reached >= n {
			continue
		}
		out = append(out, fmt.Sprintf("the rolling_restart at %s reaches %d of its %d members before the %s horizon (it would need %s); the rest never restart",
			FormatDuration(ev.At), reached, n, FormatDuration(sc.Duration), FormatDuration(ev.At+time.Duration(n-1)*ev.Interval+ev.For)))
	}
	return out
}
