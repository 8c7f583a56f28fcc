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
