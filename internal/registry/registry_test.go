package registry

import (
	"slices"
	"testing"
)

type named string

func (n named) Name() string { return string(n) }

// builtin stands for a package's own assignors; its values differ from
// their names so that a test can tell a built-in from a plugged-in one.
type builtin struct{ name, impl string }

func (b builtin) Name() string { return b.name }

func TestExtraWinsOverBuiltinAndLaterOverEarlier(t *testing.T) {
	builtins := []builtin{{"range", "builtin-range"}, {"sticky", "builtin-sticky"}}
	s := New(builtins, builtin{"mine", "first"}, builtin{"range", "plugged"}, builtin{"mine", "second"})
	if a, ok := s.ByName("range"); !ok || a.impl != "plugged" {
		t.Errorf("range = %v, %v; want the plugged-in one", a, ok)
	}
	if a, ok := s.ByName("mine"); !ok || a.impl != "second" {
		t.Errorf("mine = %v, %v; want the later of the two", a, ok)
	}
	if a, ok := s.ByName("sticky"); !ok || a.impl != "builtin-sticky" {
		t.Errorf("sticky = %v, %v; want the built-in", a, ok)
	}
	if _, ok := s.ByName("nope"); ok {
		t.Error("found an assignor nobody registered")
	}
	if a, ok := New(builtins).ByName("range"); !ok || a.impl != "builtin-range" {
		t.Errorf("without extras: %v, %v", a, ok)
	}
}

func TestNamesListEachNameOnceBuiltinsFirst(t *testing.T) {
	s := New([]named{"range", "sticky"}, "mine", "range", "other", "mine")
	// range is a built-in's name, so the plugged-in range adds nothing;
	// mine is listed where it was first given.
	want := []string{"range", "sticky", "mine", "other"}
	if got := s.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if got := New[named](nil).Names(); len(got) != 0 {
		t.Errorf("an empty set names %v", got)
	}
}
