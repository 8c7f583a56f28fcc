package slab

import "testing"

// TestNewCopies checks that every value gets a place of its own, across
// chunk boundaries: 200 values span chunks of 4, 8 and then 16s.
func TestNewCopies(t *testing.T) {
	var s Slab[int]
	var ps []*int
	for i := range 200 {
		ps = append(ps, s.New(i))
	}
	for i, p := range ps {
		if *p != i {
			t.Fatalf("value %d reads %d: a later New overwrote it", i, *p)
		}
	}
	// The chunks double from 4 and stop at 16: 4+8 = 12 values in the
	// first two, and the 200th value is in a chunk of 16.
	if s.size != maxChunk {
		t.Fatalf("chunk size after 200 values is %d, want %d", s.size, maxChunk)
	}
}
