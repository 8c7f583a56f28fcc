package nextgen

import (
	"math/rand/v2"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// TestNoteAssignmentMatchesMap: a member's assignment epochs moved along
// through random reconciliation records, against a map from partition to
// epoch kept the obvious way: a partition held or being revoked keeps the
// epoch it was first noted at while the member keeps it, a new one takes
// the record's epoch, one the member no longer has is forgotten (and
// takes the new epoch if it comes back later).
func TestNoteAssignmentMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1251, 18))
	randomAssignment := func() kafka.Assignment {
		a := kafka.Assignment{}
		for _, topic := range []string{"a", "b", "c"} {
			for p := range int32(12) {
				if r.IntN(3) == 0 {
					a[topic] = append(a[topic], p)
				}
			}
		}
		return a.Normalize()
	}
	for run := range 200 {
		var m member
		want := map[kafka.TopicPartition]int32{}
		for epoch := int32(1); epoch <= 20; epoch++ {
			next, pending := randomAssignment(), randomAssignment()
			if r.IntN(2) == 0 {
				pending = pending.Minus(next) // as reconcile keeps them, disjoint
			}
			m.noteAssignment(next, pending, epoch)
			held := map[kafka.TopicPartition]bool{}
			for _, tp := range append(next.Partitions(), pending.Partitions()...) {
				held[tp] = true
				if _, ok := want[tp]; !ok {
					want[tp] = epoch
				}
			}
			for tp := range want {
				if !held[tp] {
					delete(want, tp)
				}
			}
			n := 0
			for _, pes := range m.assignmentEpochs {
				n += len(pes)
			}
			if n != len(want) {
				t.Fatalf("run %d, epoch %d: %d partitions noted (%v), want %d", run, epoch, n, m.assignmentEpochs, len(want))
			}
			for tp, e := range want {
				if got, ok := m.assignmentEpochs.get(tp); !ok || got != e {
					t.Fatalf("run %d, epoch %d: %v noted at %d (%v), want %d", run, epoch, tp, got, ok, e)
				}
			}
		}
	}
}
