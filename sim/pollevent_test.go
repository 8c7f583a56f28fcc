package sim_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/sim"
)

// revokeDelay runs a saturated consumer-protocol member c1 (4 partitions
// producing 100 records/s, processed at 50/s, so every poll() returns a
// full batch of 100 records: 2 s) that c2 joins at 20 s, and returns how
// long after c1 turned RECONCILING its revocation callback started.
func revokeDelay(t *testing.T, release string, seed uint64) time.Duration {
	t.Helper()
	rate, records, listener := 50.0, 100, true
	sc := &sim.Scenario{
		Name: "poll-event", Seed: seed, Duration: 40 * time.Second, KafkaVersion: release,
		Topics:   []sim.TopicSpec{{Name: "orders", Partitions: 4, Rate: 100}},
		Defaults: sim.ConsumerSettings{ProcessingRate: &rate, MaxPollRecords: &records, RebalanceListener: &listener},
		Members:  []sim.MemberSpec{{ID: "c1"}, {ID: "c2", Start: 20 * time.Second}},
	}
	var trace bytes.Buffer
	if _, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: sim.ProtocolNextgen, Trace: &trace}); err != nil {
		t.Fatal(err)
	}
	reconciling, revoked := -1.0, -1.0
	for _, rec := range traceRecords(t, &trace) {
		switch {
		case rec.Member != "c1" || rec.T < 20:
		case rec.Event == "client_state" && rec.Detail == "RECONCILING" && reconciling < 0:
			reconciling = rec.T
		case rec.Event == "callback_start" && strings.HasPrefix(rec.Detail, "revoked") && revoked < 0:
			revoked = rec.T
		}
	}
	if reconciling < 0 || revoked < 0 {
		t.Fatalf("%s seed %d: c1 turned RECONCILING at %v and revoked at %v after 20s: want both", release, seed, reconciling, revoked)
	}
	return time.Duration((revoked - reconciling) * float64(time.Second))
}

// TestReconciliationWaitsForThePollEvent: with auto-commit on, a
// consumer-protocol member starts a reconciliation only in the poll()
// that hands its background thread the application's poll event, and
// runs the revocation's listener in the poll() after that.
//
// Before 4.2 every poll() hands one: the first poll() after the target
// arrives is at most a batch (2 s) away, and the listener a batch after
// it, so the delay is over one batch and at most two. From 4.2 a member
// with records buffered hands one at every other poll() only, so the
// reconciliation starts at the first or the second poll(): over one batch
// and at most three, and, since where the member is in that alternation
// is drawn, past two batches on some seeds and not on others.
func TestReconciliationWaitsForThePollEvent(t *testing.T) {
	const batch = 2 * time.Second
	const slack = 10 * time.Millisecond // network and callback times
	late := 0
	for seed := uint64(1); seed <= 20; seed++ {
		if d := revokeDelay(t, "4.0", seed); d <= batch || d > 2*batch+slack {
			t.Errorf("4.0 seed %d: revoked %v after RECONCILING, want over %v and at most %v", seed, d, batch, 2*batch)
		}
		d := revokeDelay(t, "4.3", seed)
		if d <= batch || d > 3*batch+slack {
			t.Errorf("4.3 seed %d: revoked %v after RECONCILING, want over %v and at most %v", seed, d, batch, 3*batch)
		}
		if d > 2*batch+slack {
			late++
		}
	}
	if late == 0 || late == 20 {
		t.Errorf("4.3: %d of 20 seeds revoked past two batches, want some and not all (the alternation's phase is drawn)", late)
	}
}
