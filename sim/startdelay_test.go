package sim_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/sim"
)

// TestStartDelaysMoveProcessStartsNotTheWindow delays c1's first process
// and c2's second one and reads the process starts from the trace: each
// comes up its delay after the scenario's start or restart, and the
// disturbance (the restart) stays where the scenario put it.
func TestStartDelaysMoveProcessStartsNotTheWindow(t *testing.T) {
	sc := &sim.Scenario{
		Name: "delays", Seed: 1, Duration: 30 * time.Second,
		Topics:  []sim.TopicSpec{{Name: "t", Partitions: 4, Rate: 10}},
		Members: []sim.MemberSpec{{ID: "c1"}, {ID: "c2"}},
		Events:  []sim.Event{{Kind: sim.EventRestart, At: 10 * time.Second, For: 2 * time.Second, Members: []string{"c2"}}},
	}
	var trace bytes.Buffer
	delays := map[string][]time.Duration{"c1": {1500 * time.Millisecond}, "c2": {0, 700 * time.Millisecond}}
	res, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: sim.ProtocolNextgen, Trace: &trace, StartDelays: delays})
	if err != nil {
		t.Fatal(err)
	}
	var starts []string
	for _, rec := range traceRecords(t, &trace) {
		if rec.Event == "process_start" {
			starts = append(starts, rec.Member+"@"+time.Duration(rec.T*float64(time.Second)).Round(time.Millisecond).String())
		}
	}
	// c2's first process has no delay (0s); c1's comes 1.5s late; c2's
	// second comes 0.7s after the restart's 12s.
	if got, want := strings.Join(starts, " "), "c2@0s c1@1.5s c2@12.7s"; got != want {
		t.Errorf("process starts %s, want %s", got, want)
	}
	// The window opens at the restart (10s): a delayed start is no
	// disturbance of its own.
	if len(res.Disturbances) == 0 || res.Disturbances[0].Start != 10 {
		t.Errorf("disturbances %+v, want the restart at 10s first", res.Disturbances)
	}
	// The restart lasts until c2's delayed process is up, 12.7s, and
	// convergence is judged from then: the group of c1 alone is settled
	// at 12s, but c2 has yet to join. Judged from 12s, the restart's
	// convergence would be its 2s of down time exactly.
	if len(res.Disturbances) == 0 || res.Disturbances[0].End != 12.7 {
		t.Errorf("disturbances %+v, want the restart to end at 12.7s, when c2's process is up", res.Disturbances)
	}
	if len(res.Convergence) == 0 || res.Convergence[0].Seconds <= 2.7 {
		t.Errorf("convergence %+v, want the restart's over 2.7s: c2 joins after its process is up at 12.7s", res.Convergence)
	}
}

// TestStartDelaysRefuseBadDelays checks that a delay for a stranger or a
// negative one is an error naming the member.
func TestStartDelaysRefuseBadDelays(t *testing.T) {
	sc := &sim.Scenario{
		Name: "delays", Seed: 1, Duration: 10 * time.Second,
		Topics:  []sim.TopicSpec{{Name: "t", Partitions: 1, Rate: 10}},
		Members: []sim.MemberSpec{{ID: "c1"}},
	}
	for _, c := range []struct {
		delays map[string][]time.Duration
		want   string
	}{
		{map[string][]time.Duration{"c9": {time.Second}}, `"c9", who is no member`},
		{map[string][]time.Duration{"c1": {-time.Second}}, `"c1"'s process 1 is negative`},
	} {
		_, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: sim.ProtocolEager, StartDelays: c.delays})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("StartDelays %v: error %v, want one saying %s", c.delays, err, c.want)
		}
	}
}
