package protocols_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// commitGroup is four consumers at Kafka's defaults sharing 12 partitions
// that produce 20 records/s each, with a network of the given constant
// latency.
func commitGroup(latency time.Duration, events ...sim.Event) *sim.Scenario {
	sc := &sim.Scenario{Name: "commits", Seed: 1, Duration: 4 * time.Minute,
		Topics:  []sim.TopicSpec{{Name: "orders", Partitions: 12, Rate: 20}},
		Network: sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: latency}},
		Group:   sim.DefaultGroupConfig(), Events: events,
	}
	for i := 1; i <= 4; i++ {
		sc.Members = append(sc.Members, sim.MemberSpec{ID: fmt.Sprintf("c%d", i)})
	}
	return sc
}

// TestZombieCommitIsRejected: c2 freezes for 60s at 30s, longer than the
// 45s session timeout, so the coordinator removes it at about 75s. When it
// resumes at 90s its application thread polls once and auto-commits, with
// the member id and generation (or member epoch) it still believes in:
// the coordinator no longer knows the member and answers
// UNKNOWN_MEMBER_ID (ClassicGroup.validateOffsetCommit,
// ConsumerGroup.validateOffsetCommit), so exactly one commit is rejected,
// under every protocol. The 5s auto-commit ticks that fell due during the
// pause make one commit in that poll(), not one each. No other commit is
// rejected: every live member commits with its current generation or
// epoch.
func TestZombieCommitIsRejected(t *testing.T) {
	sc := commitGroup(2*time.Millisecond, sim.Event{At: 30 * time.Second, Kind: sim.EventPause, Members: []string{"c2"}, For: time.Minute})
	for _, protocol := range sim.Protocols() {
		for seed := uint64(1); seed <= 3; seed++ {
			if m := runSeed(t, sc, protocol, seed); m.RejectedCommits != 1 {
				t.Errorf("%s seed %d: rejected_commits %d, want 1 (the zombie's auto-commit on resuming)", protocol, seed, m.RejectedCommits)
			}
		}
	}
	// A pause shorter than the session timeout fences nothing, and every
	// commit is accepted.
	short := commitGroup(2*time.Millisecond, sim.Event{At: 30 * time.Second, Kind: sim.EventPause, Members: []string{"c2"}, For: 10 * time.Second})
	for _, protocol := range sim.Protocols() {
		if m := runSeed(t, short, protocol, 1); m.RejectedCommits != 0 {
			t.Errorf("%s, 10s pause: rejected_commits %d, want 0", protocol, m.RejectedCommits)
		}
	}
}

// TestRevocationWaitsForItsCommit: a revocation that commits first
// (commitSync in the listener, or the consumer protocol's commit before
// revocation) completes only once the OffsetCommit's response is back.
// With 50ms each way, the round trip (100ms) is longer than
// commit_latency (5ms): were the partitions released after
// commit_latency alone, before the coordinator had accepted the commit,
// the records processed since the last commit would be counted as
// processed again. So a fifth member joining at 60s makes no duplicates
// under cooperative with commit_on_revoke, nor under nextgen, as with a
// fast network.
func TestRevocationWaitsForItsCommit(t *testing.T) {
	for _, latency := range []time.Duration{2 * time.Millisecond, 50 * time.Millisecond} {
		sc := commitGroup(latency)
		sc.Members = append(sc.Members, sim.MemberSpec{ID: "c5", Start: time.Minute})
		commit := true
		sc.Defaults.CommitOnRevoke = &commit
		for _, protocol := range []string{sim.ProtocolCooperative, sim.ProtocolNextgen} {
			m := runSeed(t, sc, protocol, 1)
			if m.Revocations == 0 {
				t.Fatalf("%s, latency %s: no revocation, the test shows nothing", protocol, latency)
			}
			if m.DuplicateRecords != 0 || m.RejectedCommits != 0 {
				t.Errorf("%s, latency %s: duplicate_records %.1f rejected_commits %d, want 0 and 0", protocol, latency, m.DuplicateRecords, m.RejectedCommits)
			}
		}
	}
}
