package assignor

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// TestUniformHomogeneousExtras: who gets the extra partitions when the
// partitions do not divide evenly, under Kafka 4.0's homogeneous builder and
// under 4.1's (KAFKA-18688), worked by hand from
// UniformHomogeneousAssignmentBuilder.maybeRevokePartitions and
// assignRemainingPartitions. One topic t; members in the order listed.
func TestUniformHomogeneousExtras(t *testing.T) {
	for _, tc := range []struct {
		name       string
		partitions int32
		members    []Member
		want40     map[string][]int32
		want41     map[string][]int32
	}{
		{
			// 5 over 2: minimum 2, one extra. 4.0 gives it to the first
			// member. Under 4.1 nobody holds anything, so nobody claims it;
			// it goes to the last member queued.
			name:       "first assignment",
			partitions: 5,
			members:    []Member{{ID: "A"}, {ID: "B"}},
			want40:     map[string][]int32{"A": {0, 1, 2}, "B": {3, 4}},
			want41:     map[string][]int32{"A": {0, 1}, "B": {2, 3, 4}},
		},
		{
			// 10 over 3: minimum 3, one extra, and A holds it already but
			// comes second. 4.0 offers the extra to B, the first, which
			// takes A's clicks-3; 4.1 lets A keep its four: nothing moves.
			name:       "balanced target in another order",
			partitions: 10,
			members:    []Member{{ID: "B", Current: kafka.Assignment{"t": {4, 5, 6}}}, {ID: "A", Current: kafka.Assignment{"t": {0, 1, 2, 3}}}, {ID: "C", Current: kafka.Assignment{"t": {7, 8, 9}}}},
			want40:     map[string][]int32{"A": {0, 1, 2}, "B": {3, 4, 5, 6}, "C": {7, 8, 9}},
			want41:     map[string][]int32{"A": {0, 1, 2, 3}, "B": {4, 5, 6}, "C": {7, 8, 9}},
		},
		{
			// 12 over 5 after a fifth member joins four of three: minimum
			// 2, two extras. Both builders let the first two keep their
			// three (under 4.1 because they claim the extras while extras
			// are left); the others give up their highest partition.
			name:       "scale-out with a remainder",
			partitions: 12,
			members: []Member{{ID: "A", Current: kafka.Assignment{"t": {0, 1, 2}}}, {ID: "B", Current: kafka.Assignment{"t": {3, 4, 5}}},
				{ID: "C", Current: kafka.Assignment{"t": {6, 7, 8}}}, {ID: "D", Current: kafka.Assignment{"t": {9, 10, 11}}}, {ID: "E"}},
			want40: map[string][]int32{"A": {0, 1, 2}, "B": {3, 4, 5}, "C": {6, 7}, "D": {9, 10}, "E": {8, 11}},
			want41: map[string][]int32{"A": {0, 1, 2}, "B": {3, 4, 5}, "C": {6, 7}, "D": {9, 10}, "E": {8, 11}},
		},
		{
			// 10 over 3, nobody holding anything: 4.0's first member takes
			// four, 4.1's last.
			name:       "first assignment, three members",
			partitions: 10,
			members:    []Member{{ID: "A"}, {ID: "B"}, {ID: "C"}},
			want40:     map[string][]int32{"A": {0, 1, 2, 3}, "B": {4, 5, 6}, "C": {7, 8, 9}},
			want41:     map[string][]int32{"A": {0, 1, 2}, "B": {3, 4, 5}, "C": {6, 7, 8, 9}},
		},
	} {
		for _, mode := range []struct {
			anyMember bool
			want      map[string][]int32
		}{{false, tc.want40}, {true, tc.want41}} {
			members := make([]Member, len(tc.members))
			for i, m := range tc.members {
				m.Topics = []string{"t"}
				members[i] = m
			}
			got, err := Uniform().Assign(GroupSpec{Members: members, Type: Homogeneous, ExtraToAnyMember: mode.anyMember}, []kafka.Topic{{Name: "t", Partitions: tc.partitions}})
			if err != nil {
				t.Fatal(err)
			}
			for id, ps := range mode.want {
				if !got[id].Equal(kafka.Assignment{"t": ps}) {
					t.Errorf("%s, extra to any member %v: %s got %v, want t%v", tc.name, mode.anyMember, id, got[id], ps)
				}
			}
		}
	}
}

// TestUniformHomogeneousKeepsBalancedTargets: under 4.1's builder a
// balanced target is a fixed point whatever the member order (the point of
// KAFKA-18688), so recomputing it after the coordinator's member order
// changes moves nothing. 4.0's moves partitions on some of these groups,
// which is what the fix was for.
func TestUniformHomogeneousKeepsBalancedTargets(t *testing.T) {
	r := rand.New(rand.NewPCG(18688, 1))
	moved40 := 0
	for run := range 300 {
		spec, topics := randomGroupOf(r, Homogeneous, smallGroups)
		spec.ExtraToAnyMember = true
		first, err := Uniform().Assign(spec, topics)
		if err != nil {
			t.Fatal(err)
		}
		for i := range spec.Members {
			spec.Members[i].Current = first[spec.Members[i].ID]
		}
		r.Shuffle(len(spec.Members), func(i, j int) { spec.Members[i], spec.Members[j] = spec.Members[j], spec.Members[i] })
		again, err := Uniform().Assign(spec, topics)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range spec.Members {
			if !again[m.ID].Equal(first[m.ID]) {
				t.Fatalf("run %d: member %s went from %v to %v after a reorder", run, m.ID, first[m.ID], again[m.ID])
			}
		}
		spec.ExtraToAnyMember = false
		old, err := Uniform().Assign(spec, topics)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range spec.Members {
			if !old[m.ID].Equal(first[m.ID]) {
				moved40++
				break
			}
		}
	}
	// The 4.0 builder must move something on some group, or this test
	// does not tell the builders apart.
	if moved40 == 0 {
		t.Error("4.0's builder kept every reordered balanced target: the groups are too easy")
	}
}

// TestJavaSetOrder: the iteration order of Java 21's new HashSet<>(list)
// for small lists of partition numbers, worked by hand from HashMap: the
// table has max(16, the power of two ≥ n/0.75) buckets, partition p sits in
// bucket p & (capacity-1) (p below 65536, where the hash spread changes
// nothing), buckets are read in order and a bucket in list order.
func TestJavaSetOrder(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in, want []int32
	}{
		{"below the table size: ascending", seq(0, 11), seq(0, 11)},
		{"13 partitions: 32 buckets, still ascending", seq(0, 12), seq(0, 12)},
		{"17 wraps to bucket 1 of 16", []int32{5, 17}, []int32{17, 5}},
		{"one bucket: list order", []int32{3, 19, 35}, []int32{3, 19, 35}},
		{"20-39 in 32 buckets: 32-39 first", seq(20, 39), append(seq(32, 39), seq(20, 31)...)},
		{"a reversed list of small numbers: ascending", []int32{4, 3, 2, 1}, []int32{1, 2, 3, 4}},
	} {
		var buf []int32
		if got := javaSetOrder(tc.in, &buf); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v iterates as %v, want %v", tc.name, tc.in, got, tc.want)
		}
		if got := referenceHashSet(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%s: the reference iterates %v as %v, want %v", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestJavaSetOrderRandom: javaSetOrder against the table-of-buckets
// reference on random lists of distinct partitions, in random order, of up
// to 600 (beyond the 256 the sort keeps on the stack) and numbers up to
// 200,000 (beyond 65,536, where the hash spread moves partitions between
// buckets). The reference is exact for distinct lists: each bucket in list
// order.
func TestJavaSetOrderRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 2))
	var buf []int32
	for range 500 {
		n := 1 + rng.IntN(600)
		seen := map[int32]bool{}
		var list []int32
		for len(list) < n {
			p := rng.Int32N(200_000)
			if !seen[p] {
				seen[p] = true
				list = append(list, p)
			}
		}
		if rng.IntN(2) == 0 {
			slices.Sort(list)
		}
		if got, want := javaSetOrder(list, &buf), referenceHashSet(list); !slices.Equal(got, want) {
			t.Fatalf("%v iterates as %v, want %v", list, got, want)
		}
	}
}

// TestUniformHomogeneousKeepsInHashSetOrder: 40 partitions, A holding 0-19
// and B 20-39, and C joins: 13 each and one extra, which A, first, keeps
// (under both builders). A iterates 0-19 in order and keeps 0-13. B's set
// of 20 has 32 buckets, so it iterates 32-39 before 20-31, keeps 32-39 and
// 20-24 and gives up 25-31, not 33-39. C takes what A and B gave up.
func TestUniformHomogeneousKeepsInHashSetOrder(t *testing.T) {
	for _, anyMember := range []bool{false, true} {
		members := []Member{
			{ID: "A", Topics: []string{"t"}, Current: kafka.Assignment{"t": seq(0, 19)}},
			{ID: "B", Topics: []string{"t"}, Current: kafka.Assignment{"t": seq(20, 39)}},
			{ID: "C", Topics: []string{"t"}},
		}
		got, err := Uniform().Assign(GroupSpec{Members: members, Type: Homogeneous, ExtraToAnyMember: anyMember}, []kafka.Topic{{Name: "t", Partitions: 40}})
		if err != nil {
			t.Fatal(err)
		}
		for id, ps := range map[string][]int32{"A": seq(0, 13), "B": append(seq(20, 24), seq(32, 39)...), "C": append(seq(14, 19), seq(25, 31)...)} {
			if !got[id].Equal(kafka.Assignment{"t": ps}) {
				t.Errorf("extra to any member %v: %s got %v, want t%v", anyMember, id, got[id], ps)
			}
		}
	}
}

// seq lists the partitions from through to.
func seq(from, to int32) []int32 {
	var s []int32
	for p := from; p <= to; p++ {
		s = append(s, p)
	}
	return s
}
