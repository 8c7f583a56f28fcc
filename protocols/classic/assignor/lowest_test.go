package assignor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// TestLowestPartitionNumbersIsTheSortedPrefix holds the one-pass path of
// lowestPartitionNumbers (a member giving up at most fewDropped
// partitions) to its definition: sort the owned partitions by number,
// then topic, and keep the first quota. Random universes of one to three
// topics, random owned sets, every quota from none to all.
func TestLowestPartitionNumbersIsTheSortedPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		var in Input
		for i := range 1 + r.IntN(3) {
			in.Topics = append(in.Topics, kafka.Topic{Name: fmt.Sprintf("t%d", i), Partitions: int32(1 + r.IntN(40))})
		}
		u := newUniverse(Input{Topics: in.Topics, Members: []Subscription{{MemberID: "m", Topics: []string{"t0", "t1", "t2"}}}})
		total := u.offset[len(u.offset)-1]
		var owned []int32
		for gp := range total {
			if r.IntN(2) == 0 {
				owned = append(owned, gp)
			}
		}
		r.Shuffle(len(owned), func(i, j int) { owned[i], owned[j] = owned[j], owned[i] })
		for quota := range int32(len(owned) + 1) {
			got, _ := lowestPartitionNumbers(u, owned, quota, nil)
			slices.Sort(got)
			want := sortedPrefix(u, owned, quota)
			if !slices.Equal(got, want) {
				t.Fatalf("topics %v, owned %v, quota %d: kept %v, want %v", in.Topics, owned, quota, got, want)
			}
		}
	}
}

// sortedPrefix is the slow definition: sort by (partition number, topic),
// keep the first quota, return them by global index.
func sortedPrefix(u *universe, owned []int32, quota int32) []int32 {
	byNumber := slices.Clone(owned)
	slices.SortFunc(byNumber, func(a, b int32) int {
		ta, tb := u.topicOfPartition(a), u.topicOfPartition(b)
		if na, nb := a-u.offset[ta], b-u.offset[tb]; na != nb {
			return int(na - nb)
		}
		return int(ta - tb)
	})
	out := slices.Clone(byNumber[:quota])
	slices.Sort(out)
	return out
}
