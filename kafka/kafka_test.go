package kafka

import (
	"slices"
	"testing"
)

func TestAssignmentSetOperations(t *testing.T) {
	a := Assignment{"orders": {3, 1, 2, 2}, "payments": {0}, "empty": {}}.Normalize()
	b := Assignment{"orders": {2, 3, 4}}
	for _, tc := range []struct {
		name string
		got  Assignment
		want Assignment
	}{
		{"normalize", a, Assignment{"orders": {1, 2, 3}, "payments": {0}}},
		{"minus", a.Minus(b), Assignment{"orders": {1}, "payments": {0}}},
		{"intersect", a.Intersect(b), Assignment{"orders": {2, 3}}},
		{"union", a.Union(b), Assignment{"orders": {1, 2, 3, 4}, "payments": {0}}},
		{"from partitions", FromPartitions([]TopicPartition{{"t", 2}, {"t", 0}, {"t", 2}}), Assignment{"t": {0, 2}}},
	} {
		if !tc.got.Equal(tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if a.Size() != 4 || !a.Contains(TopicPartition{"orders", 2}) || a.Contains(TopicPartition{"orders", 4}) {
		t.Errorf("size/contains wrong for %v", a)
	}
	if got := a.String(); got != "orders[1 2 3] payments[0]" {
		t.Errorf("String() = %q", got)
	}
	c := a.Clone()
	c["orders"][0] = 99
	if a["orders"][0] != 1 {
		t.Error("Clone shares partition slices with the original")
	}
	tps := []TopicPartition{{"b", 1}, {"a", 10}, {"a", 2}}
	SortPartitions(tps)
	if !slices.Equal(tps, []TopicPartition{{"a", 2}, {"a", 10}, {"b", 1}}) {
		t.Errorf("SortPartitions = %v", tps)
	}
}

// TestMinusIntersectAgainstMembership checks the merge walk against the
// definition, partition by partition: p is in a.Minus(b) iff it is in a
// and not in b, and in a.Intersect(b) iff it is in both; nil when empty.
func TestMinusIntersectAgainstMembership(t *testing.T) {
	topics := []string{"a", "b", "c"}
	rng := uint64(1)
	next := func(n int) int {
		rng = rng*6364136223846793005 + 1442695040888963407
		return int(rng>>33) % n
	}
	// Short lists of 16 partition numbers, and long ones of 200, whose
	// runs in common reach past the blocks commonRun compares at once.
	span, size := int32(16), 12
	random := func() Assignment {
		out := Assignment{}
		for _, tp := range topics[:next(len(topics)+1)] {
			for range next(size) {
				out[tp] = append(out[tp], int32(next(int(span))))
			}
		}
		return out.Normalize()
	}
	for i := range 4000 {
		if i == 2000 {
			span, size = 200, 300
		}
		a, b := random(), random()
		for _, tp := range a.Topics() {
			// Lists equal on both sides, as most of a member's are
			// before and after a rebalance.
			// Some are the very same list, as when an assignor hands a
			// member its own back, or a prefix of it in the same memory;
			// others differ from it by a partition or two.
			switch next(5) {
			case 0, 1:
				b[tp] = slices.Clone(a[tp])
			case 2:
				b[tp] = a[tp][:next(len(a[tp])+1)]
			case 3:
				c := slices.Clone(a[tp])
				for range 1 + next(2) {
					if k := next(len(c) + 1); next(2) == 0 && k < len(c) {
						c = slices.Delete(c, k, k+1)
					} else {
						c = append(c, int32(next(int(span))))
					}
				}
				b[tp] = Assignment{tp: c}.Normalize()[tp]
			}
		}
		minus, inter := a.Minus(b), a.Intersect(b)
		for _, tp := range topics {
			for p := range span {
				x := TopicPartition{tp, p}
				inA, inB := a.Contains(x), b.Contains(x)
				if minus.Contains(x) != (inA && !inB) || inter.Contains(x) != (inA && inB) {
					t.Fatalf("case %d: %v minus/intersect %v gave %v / %v at %v", i, a, b, minus, inter, x)
				}
			}
		}
		if (minus == nil) != (minus.Size() == 0) || (inter == nil) != (inter.Size() == 0) {
			t.Fatalf("case %d: an empty difference must be nil: %v / %v", i, minus, inter)
		}
	}
}

// TestEqual: assignments are equal when they hold the same partitions, an
// empty list reading as no topic at all, whichever side it is on and
// whether or not the two list as many topics.
func TestEqual(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b Assignment
		want bool
	}{
		{"both empty", nil, Assignment{}, true},
		{"same", Assignment{"a": {1, 2}, "b": {3}}, Assignment{"b": {3}, "a": {1, 2}}, true},
		{"a partition less", Assignment{"a": {1, 2}}, Assignment{"a": {1}}, false},
		{"another partition", Assignment{"a": {1, 2}}, Assignment{"a": {1, 3}}, false},
		{"another topic, as many topics", Assignment{"a": {1}}, Assignment{"b": {1}}, false},
		{"an empty list against none", Assignment{"a": {1}, "b": {}}, Assignment{"a": {1}}, true},
		{"an empty list each, other topics", Assignment{"a": {1}, "b": {}}, Assignment{"a": {1}, "c": nil}, true},
		{"an empty list against a partition", Assignment{"a": {1}, "b": {}}, Assignment{"a": {1}, "b": {2}}, false},
		{"an empty list beside the partition", Assignment{"b": {}}, Assignment{"a": {1}}, false},
	} {
		if got := tc.a.Equal(tc.b); got != tc.want {
			t.Errorf("%s: %v.Equal(%v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
		if got := tc.b.Equal(tc.a); got != tc.want {
			t.Errorf("%s: %v.Equal(%v) = %v, want %v", tc.name, tc.b, tc.a, got, tc.want)
		}
	}
}

// TestSameMap checks the shortcut Equal takes: the same map is the same,
// a copy of it is not (Equal walks it), and nil is only nil.
func TestSameMap(t *testing.T) {
	a := Assignment{"orders": {0, 1}}
	b := Assignment{"orders": {0, 1}}
	var none Assignment
	for _, c := range []struct {
		x, y Assignment
		want bool
	}{
		{a, a, true},
		{a, b, false},
		{none, none, true},
		{none, Assignment{}, false},
	} {
		if got := sameMap(c.x, c.y); got != c.want {
			t.Errorf("sameMap(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
		if !c.x.Equal(c.y) && c.want {
			t.Errorf("%v is not Equal to the same map", c.x)
		}
	}
	if !a.Equal(b) {
		t.Errorf("%v and its copy are not Equal", a)
	}
}
