package protocols_test

import (
	"fmt"
	"math"
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

// TestCloseCommitIsAMessage: c2 closes at 60.5s while cut off from the
// coordinator (from 59s, for a minute). Its close commits before it
// revokes (ConsumerCoordinator.close → maybeAutoCommitOffsetsSync; the
// consumer protocol's commit before revocation), and that OffsetCommit is
// dropped, as is the auto-commit tick of 60s: the last commit the
// coordinator accepted is the tick of 55s, so its 3 partitions' 5.5s at
// 20 records/s, 3 × 20 × 5.5 = 330 records, are processed again by their
// next owners (nothing else is lost: every other member stays). Without
// the cut the close's commit is accepted, and nothing is processed again.
func TestCloseCommitIsAMessage(t *testing.T) {
	closeAt := sim.Event{At: 60500 * time.Millisecond, Kind: sim.EventLeave, Members: []string{"c2"}}
	cut := sim.Event{At: 59 * time.Second, Kind: sim.EventNetworkPartition, Members: []string{"c2"}, For: time.Minute}
	for _, protocol := range sim.Protocols() {
		if m := runSeed(t, commitGroup(2*time.Millisecond, closeAt), protocol, 1); m.DuplicateRecords != 0 {
			t.Errorf("%s, close: duplicate_records %.1f, want 0 (the close's commit is accepted)", protocol, m.DuplicateRecords)
		}
		if m := runSeed(t, commitGroup(2*time.Millisecond, cut, closeAt), protocol, 1); math.Abs(m.DuplicateRecords-330) > 1e-6 {
			t.Errorf("%s, close while cut off: duplicate_records %v, want 330 (the close's commit never arrives)", protocol, m.DuplicateRecords)
		}
	}
}

// TestCommitCarriesSendTimePositions: with 1s each way, c2's auto-commit
// of 55s reaches the coordinator at 56s and is accepted; c2 crashes at
// 58s. The commit carries the positions c2 had consumed when it built it
// (ConsumerCoordinator.maybeAutoCommitOffsetsAsync → allConsumed()), so
// its 3 partitions' 3s since 55s at 20 records/s, 3 × 20 × 3 = 180
// records, are processed again under every protocol; a commit of what was
// processed when it was accepted would leave 120.
func TestCommitCarriesSendTimePositions(t *testing.T) {
	sc := commitGroup(time.Second, sim.Event{At: 58 * time.Second, Kind: sim.EventCrash, Members: []string{"c2"}})
	for _, protocol := range sim.Protocols() {
		if m := runSeed(t, sc, protocol, 1); math.Abs(m.DuplicateRecords-180) > 1e-6 {
			t.Errorf("%s: duplicate_records %v, want 180 (processed since the commit was sent)", protocol, m.DuplicateRecords)
		}
	}
}

// TestStaleEpochCommitByRelease: a fifth member joins at 60s under the
// consumer protocol, 500ms each way. c3 and c4 acknowledge their
// revocation at 64s and the coordinator answers with epoch 5 at 64.5s;
// their auto-commit tick of 65s goes out before that answer is read, with
// epoch 4, for the partitions they keep. Kafka 4.0 wants the member's
// current epoch (ConsumerGroup.validateOffsetCommit) and rejects both
// commits with STALE_MEMBER_EPOCH; 4.3 accepts an older epoch for
// partitions assigned at it or before (KIP-1251), and rejects none. No
// record is processed again either way: the kept partitions are
// committed by the next tick.
func TestStaleEpochCommitByRelease(t *testing.T) {
	for _, c := range []struct {
		release  string
		rejected int
	}{{"4.0", 2}, {"4.3", 0}} {
		sc := commitGroup(500 * time.Millisecond)
		sc.KafkaVersion = c.release
		sc.Members = append(sc.Members, sim.MemberSpec{ID: "c5", Start: time.Minute})
		for seed := uint64(1); seed <= 5; seed++ {
			if m := runSeed(t, sc, sim.ProtocolNextgen, seed); m.RejectedCommits != c.rejected || m.DuplicateRecords != 0 {
				t.Errorf("%s seed %d: rejected_commits %d duplicate_records %v, want %d and 0", c.release, seed, m.RejectedCommits, m.DuplicateRecords, c.rejected)
			}
		}
	}
}
