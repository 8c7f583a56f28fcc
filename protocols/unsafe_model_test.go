package protocols_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/classic/assignor"
	"github.com/rebalsim/rebalsim/sim"
)

// skipRevocation is a deliberately unsafe EAGER client strategy: it keeps
// every owned partition across onJoinPrepare instead of revoking it, and
// gives up what moved away only once the new assignment has arrived. The
// range assignor it runs with believes, as EAGER allows it to, that nobody
// owns anything during the rebalance, so a partition is handed to its new
// owner while the old one still holds it: the bug KIP-429's second
// rebalance exists to prevent.
type skipRevocation struct{}

func (skipRevocation) Protocol() kafka.RebalanceProtocol { return kafka.Eager }

func (skipRevocation) OnJoinPrepare(kafka.Assignment, []string) kafka.Assignment {
	return kafka.Assignment{}
}

func (skipRevocation) OnJoinComplete(owned, assigned kafka.Assignment) (revoke, add kafka.Assignment, rejoin bool) {
	return owned.Minus(assigned), assigned.Minus(owned), false
}

// unsafeModels runs every classic member with skipRevocation, through the
// same Go API a custom model would use, and leaves the coordinator and the
// consumer protocol to the default models.
type unsafeModels struct{ protocols.Models }

func (m unsafeModels) NewClient(self sim.Endpoint, cfg sim.ConsumerConfig) (sim.Client, error) {
	if cfg.GroupProtocol != "classic" {
		return m.Models.NewClient(self, cfg)
	}
	return classic.NewClient(self, cfg, skipRevocation{}, []assignor.Assignor{assignor.Range()}), nil
}

// TestUnsafeClassicModelIsReportedAsDoubleOwnership checks that the ledger,
// not the model, judges safety: a model that skips revocation is reported.
func TestUnsafeClassicModelIsReportedAsDoubleOwnership(t *testing.T) {
	sc := withStart(classicGroup(4, 2*time.Minute), "c4", 30*time.Second)
	// Each revocation takes 5ms in the application's listener, so that a
	// partition handed on before its revocation ends is held twice for
	// a measurable time.
	revoke := 5 * time.Millisecond
	sc.Defaults.RevokeCallback = &revoke
	safe := runClassic(t, sc, sim.ProtocolEager)
	if safe.Metrics.DoubleOwnershipSeconds != 0 || len(safe.Findings) != 0 {
		t.Fatalf("the real eager model: double_ownership_seconds=%v findings=%v; want 0 and none", safe.Metrics.DoubleOwnershipSeconds, safe.Findings)
	}

	// The members' ids sort in the order c1..c4 (range's order) and fall
	// in buckets 1, 2, 3 and 4 of the coordinator's 16-bucket member map
	// (Java hash codes of "c1-k", "c2-m", "c3-k", "c4-e"), so that the
	// coordinator answers them in that order too.
	ids := map[string][][]string{"c1": {{"c1-k"}}, "c2": {{"c2-m"}}, "c3": {{"c3-k"}}, "c4": {{"c4-e"}}}
	r, err := sim.Run(sc, unsafeModels{}, sim.RunOptions{Protocol: sim.ProtocolEager, Timeline: true, MemberIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	var doubled []string
	for _, f := range r.Findings {
		if f.Kind == "double_ownership" {
			if !f.Safety {
				t.Errorf("double_ownership finding %+v is not marked as a safety violation", f)
			}
			doubled = append(doubled, f.Partitions...)
		}
	}
	// Range moves 3 (c1 → c2), 6 and 7 (c2 → c3), and 9, 10, 11 (c3 → c4).
	// The group is caught up (400 records/s against 2,000 per member), so
	// every member is in poll() and acts on a response at once: all four
	// send SyncGroup at the same instant, the leader c1 first, and every
	// response arrives at t0 in that order: c1's, c2's, c3's, c4's. Each
	// revocation callback takes 5ms (revoke_callback above). c4 owns
	// nothing, so it takes 9-11 at t0 while c3 still holds them until
	// t0+5ms. At t0+5ms c1's revocation of 3 ends before c2's, so c2
	// takes 3 after c1 let go of it, and c3 takes 6, 7 after c2 has: no
	// overlap.
	if want := []string{"orders-10", "orders-11", "orders-9"}; !slices.Equal(sorted(doubled), want) {
		t.Errorf("double_ownership findings on %v, want %v", doubled, want)
	}
	// 9, 10 and 11 for 5ms each.
	if got, want := r.Metrics.DoubleOwnershipSeconds, 3*0.005; math.Abs(got-want) > 1e-9 {
		t.Errorf("double_ownership_seconds = %v, want %v", got, want)
	}
}

func sorted(xs []string) []string {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs
}
