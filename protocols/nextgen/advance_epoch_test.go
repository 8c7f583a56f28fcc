package nextgen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/classic/assignor"
	"github.com/rebalsim/rebalsim/protocols/cooperative"
	"github.com/rebalsim/rebalsim/sim"
)

// reconcilingModels builds coordinators that reconcile every member with
// CurrentAssignmentBuilder (package reconcile), the shortcut for stable
// members holding their target off when always is set.
type reconcilingModels struct {
	always bool
	// made is the coordinator the run built.
	made **Coordinator
}

func (m reconcilingModels) NewCoordinator(cfg sim.GroupConfig) sim.GroupCoordinator {
	c := NewCoordinator(cfg)
	c.alwaysReconcile = m.always
	*m.made = c
	return c
}

// members lists a coordinator's consumer group members' reconciliation
// records, epochs and previous epochs included, in member order.
func members(c *Coordinator) string {
	if c == nil || c.consumer == nil {
		return ""
	}
	var b bytes.Buffer
	for _, m := range c.consumer.members {
		fmt.Fprintf(&b, "%s %+v\n", m.id, m.Member)
	}
	return b.String()
}

func (m reconcilingModels) Names() sim.Names { return sim.Names{} }

func (m reconcilingModels) NewClient(self sim.Endpoint, cfg sim.ConsumerConfig) (sim.Client, error) {
	if cfg.GroupProtocol == "consumer" {
		return NewClient(self, cfg), nil
	}
	return classic.NewClient(self, cfg, cooperative.Strategy{}, []assignor.Assignor{assignor.CooperativeSticky()}), nil
}

// TestAdvanceEpochIsWhatReconcileGives: the coordinator moves a stable
// member that holds its target and revokes nothing straight to the target
// epoch (consumerGroup.advanceEpoch), where Kafka runs
// CurrentAssignmentBuilder. On random groups under random disturbances,
// the whole trace of every run, every message and state change, must be
// the same byte for byte with the shortcut and with Reconcile for every
// member, and so must every member's record at the end, the epochs a
// trace does not show included: the shortcut is only a faster way to the
// same member.
func TestAdvanceEpochIsWhatReconcileGives(t *testing.T) {
	eachRandomScenario(40, 10, rand.NewPCG(2026, 12), func(label string, sc *sim.Scenario, protocol string) {
		var fast, slow bytes.Buffer
		var fastC, slowC *Coordinator
		if _, err := sim.Run(sc, reconcilingModels{made: &fastC}, sim.RunOptions{Protocol: protocol, Trace: &fast}); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if _, err := sim.Run(sc, reconcilingModels{always: true, made: &slowC}, sim.RunOptions{Protocol: protocol, Trace: &slow}); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if got, want := members(fastC), members(slowC); got != want {
			t.Errorf("%s: members at the end with the shortcut:\n%swith Reconcile for every member:\n%s", label, got, want)
		}
		if !bytes.Equal(fast.Bytes(), slow.Bytes()) {
			t.Errorf("%s: the trace with the stable-member shortcut differs from the one with Reconcile for every member (%d against %d bytes)", label, fast.Len(), slow.Len())
		}
	})
}
