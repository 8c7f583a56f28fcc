package sim

import (
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// TestCommitAppliesSendTimePositions: one member keeps up with two
// partitions produced at 10 records/s each, so by t it has processed
// exactly 10·t records of each. Its commit is built at 2s and accepted at
// 3s for t-0 only (t-1 rejected, as Kafka 4.3 may answer a request part
// by part); it lets both go at 5s without another commit. t-0's next
// owner processes again what was processed after the request was built,
// 50-20 = 30 records (a commit of the positions at acceptance would have
// left 50-30 = 20); t-1's all 50. A commit of everything now leaves
// exactly nothing, with no rounding left over; and a commit captured
// under an earlier claim does not commit a later one.
func TestCommitAppliesSendTimePositions(t *testing.T) {
	now := time.Duration(0)
	l := newLedger(func() time.Duration { return now }, 0, false)
	l.addProcess("a", 1000)
	l.SetMember(0, 1)
	l.SetProcess(0, true, false, false)
	tp0, tp1 := kafka.TopicPartition{Topic: "t", Partition: 0}, kafka.TopicPartition{Topic: "t", Partition: 1}
	l.addPartition(tp0, 10, nil, true)
	l.addPartition(tp1, 10, nil, true)
	l.rankByName()
	both := []kafka.TopicPartition{tp0, tp1}
	l.Assign(0, both)

	now = 2 * time.Second
	pos := l.Positions(0)
	now = 3 * time.Second
	l.CommitPositions(0, pos, func(tp kafka.TopicPartition) bool { return tp == tp0 })
	now = 5 * time.Second
	l.Release(0, both, true, false)
	if d0, d1 := l.part(0).duplicates, l.part(1).duplicates; d0 != 30 || d1 != 50 {
		t.Errorf("duplicates t-0 %v t-1 %v, want 30 (processed after the send) and 50 (rejected)", d0, d1)
	}

	// Held again from 5s: 10·(7.3-5) records by 7.3s, all committed.
	l.Assign(0, both)
	now = 7300 * time.Millisecond
	stale := l.Positions(0)
	l.Commit(0)
	l.Release(0, both, true, false)
	if d0, d1 := l.part(0).duplicates, l.part(1).duplicates; d0 != 30 || d1 != 50 {
		t.Errorf("after a commit of everything: duplicates t-0 %v t-1 %v, want 30 and 50 unchanged", d0, d1)
	}

	// Held a third time: the positions captured under the second claim
	// commit nothing of it, so the 10·(9-7.3) = 17 records of each are
	// duplicates.
	l.Assign(0, both)
	now = 9 * time.Second
	l.CommitPositions(0, stale, nil)
	l.Release(0, both, true, false)
	if d0, d1 := l.part(0).duplicates, l.part(1).duplicates; d0-30 < 16.99 || d0-30 > 17.01 || d1-50 < 16.99 || d1-50 > 17.01 {
		t.Errorf("stale positions: duplicates t-0 %v t-1 %v, want 30+17 and 50+17", d0, d1)
	}
}
