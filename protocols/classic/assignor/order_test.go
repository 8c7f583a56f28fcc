package assignor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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

// TestKeyedCompareIsStringsCompare holds the prefix shortcut to the
// comparison it stands for, on strings built to meet its edge cases:
// lengths around eight, shared prefixes, zero bytes (a short string's
// padding looks like one) and bytes above 0x7f (a signed byte would
// misorder them).
func TestKeyedCompareIsStringsCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte{0, 1, 'a', 'b', 0x7f, 0x80, 0xff}
	word := func() string {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 100000 {
		x, y := word(), word()
		if r.IntN(2) == 0 {
			y = x[:r.IntN(len(x)+1)] + y // a shared prefix
		}
		a := keyed{prefix: prefixOf(x), key: x}
		b := keyed{prefix: prefixOf(y), key: y}
		if got, want := a.compare(b), strings.Compare(x, y); got != want {
			t.Fatalf("compare(%q, %q) = %d, want %d", x, y, got, want)
		}
	}
}
