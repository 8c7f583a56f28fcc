package sim

import "testing"

func TestTimerKindsAreTheirDeclarations(t *testing.T) {
	a, b := NewTimerKind("test-kind-a"), NewTimerKind("test-kind-b")
	var none TimerKind
	if a == b || a == none || b == none {
		t.Fatalf("two declarations gave kinds %v and %v", a, b)
	}
	// A second declaration under the same name, by another model say, is
	// a kind of its own: a model's timers are its own, and the set of
	// timers a coordinator holds for its classic groups and its consumer
	// groups keeps them apart even if they share a name.
	again := NewTimerKind("test-kind-a")
	if again == a {
		t.Errorf("test-kind-a declared again is the same kind")
	}
	var s timerSet
	s.add(&timer{id: TimerID{Kind: a}})
	if got := s.get(TimerID{Kind: again}); got != nil {
		t.Errorf("a kind declared again under a's name found a's timer %v", got.id)
	}
	for id, want := range map[TimerID]string{
		{Kind: a}:                            "test-kind-a",
		{Kind: again}:                        "test-kind-a",
		{Kind: b, Handle: 3, Member: "c1-1"}: "test-kind-b/c1-1",
		{}:                                   "",
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
