package assignor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMemberInfoOrderIsCompareTo holds memberInfoOrder's two sorts to
// MemberInfo.compareTo written as one comparison: a member with an
// instance id before one without, instance ids in order, then member ids.
// Random groups mix static and dynamic members, with instance ids drawn
// from a small set so that some repeat and the member id breaks the tie.
func TestMemberInfoOrderIsCompareTo(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		members := make([]Subscription, r.IntN(40))
		for i := range members {
			members[i].MemberID = fmt.Sprintf("c%d-%08x", r.IntN(100), r.Uint32())
			if r.IntN(2) == 0 {
				members[i].InstanceID = fmt.Sprintf("i%d", r.IntN(8))
			}
		}
		want := make([]int32, len(members))
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int {
			x, y := members[a], members[b]
			switch {
			case x.InstanceID != "" && y.InstanceID == "":
				return -1
			case x.InstanceID == "" && y.InstanceID != "":
				return 1
			case x.InstanceID < y.InstanceID:
				return -1
			case x.InstanceID > y.InstanceID:
				return 1
			case x.MemberID < y.MemberID:
				return -1
			case x.MemberID > y.MemberID:
				return 1
			}
			return 0
		})
		if got := memberInfoOrder(members); !slices.Equal(got, want) {
			t.Fatalf("members %v: order %v, want %v", members, got, want)
		}
	}
}
