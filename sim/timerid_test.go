package sim

import "testing"

func TestTimerKindsAreTheirNames(t *testing.T) {
	a, b := NewTimerKind("test-kind-a"), NewTimerKind("test-kind-b")
	if a == b || a == 0 || b == 0 {
		t.Fatalf("two names gave kinds %d and %d", a, b)
	}
	// A second declaration of a name, by another model say, is the same
	// kind, as two equal strings were the same kind before kinds were
	// numbers.
	if again := NewTimerKind("test-kind-a"); again != a {
		t.Errorf("test-kind-a declared again is kind %d, want %d", again, a)
	}
	for id, want := range map[TimerID]string{
		{Kind: a}:                            "test-kind-a",
		{Kind: b, Handle: 3, Member: "c1-1"}: "test-kind-b/c1-1",
	} {
		if got := id.String(); got != want {
			t.Errorf("%#v prints %q, want %q", id, got, want)
		}
	}
}

func TestMemberHandlesNumberIDsOnce(t *testing.T) {
	var h MemberHandles
	got := []MemberHandle{h.Of("c1-1"), h.Of("c2-1"), h.Of("c1-1"), h.Of("c3-1"), h.Of("c2-1")}
	// Numbered from 1 in the order first asked for; an id asked again
	// keeps its number.
	want := []MemberHandle{1, 2, 1, 3, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("handles %v, want %v", got, want)
		}
	}
}

func TestTimerSetFindsMemberTimersByHandle(t *testing.T) {
	session, pending := NewTimerKind("test-session"), NewTimerKind("test-pending")
	var s timerSet
	ids := []TimerID{
		{Kind: session, Handle: 2, Member: "c2-1"},
		{Kind: pending, Handle: 2, Member: "c2-1"},
		{Kind: session, Handle: 1, Member: "c1-1"},
		{Kind: pending},
	}
	for _, id := range ids {
		s.add(&timer{id: id})
	}
	for _, id := range ids {
		if got := s.get(id); got == nil || got.id != id {
			t.Errorf("get(%v) found %v", id, got)
		}
	}
	if got := s.get(TimerID{Kind: session, Handle: 3, Member: "c3-1"}); got != nil {
		t.Errorf("a member without timers has %v", got.id)
	}
	if got := s.get(TimerID{Kind: session}); got != nil {
		t.Errorf("a kind armed only per member found %v alone", got.id)
	}
}

// TestMatchKindFindsTheFirst checks the word-at-a-time search against a
// plain scan, for every kind in every place of lists with repeats and
// zeros (a list's unused room).
func TestMatchKindFindsTheFirst(t *testing.T) {
	lists := [][shortTimers]uint8{
		{},
		{1, 2, 3, 4, 5, 6, 7, 8},
		{255, 1, 128, 127, 0x81, 0x80, 1, 0},
		{3, 3, 0, 0, 0, 0, 0, 0},
		{0x01, 0x00, 0x01, 0x00, 0xff, 0xfe, 0x02, 0x7f},
	}
	for _, kinds := range lists {
		for k := 0; k < 256; k++ {
			want := len(kinds)
			for i, x := range kinds {
				if x == uint8(k) {
					want = i
					break
				}
			}
			if got := matchKind(&kinds, TimerKind(k)); got != want {
				t.Errorf("matchKind(%v, %d) = %d, want %d", kinds, k, got, want)
			}
		}
	}
}
