package registry

import "testing"

type named string

func (n named) Name() string { return string(n) }

func TestExtraWinsOverBuiltinAndLaterOverEarlier(t *testing.T) {
	builtin := func(name string) (named, bool) {
		if name == "range" {
			return "builtin-range", true
		}
		return "", false
	}
	s := New(builtin, named("mine"), named("range"))
	if a, ok := s.ByName("range"); !ok || a != "range" {
		t.Errorf("range = %q, %v; want the plugged-in one", a, ok)
	}
	if a, ok := s.ByName("mine"); !ok || a != "mine" {
		t.Errorf("mine = %q, %v", a, ok)
	}
	if _, ok := s.ByName("nope"); ok {
		t.Error("found an assignor nobody registered")
	}
	if a, ok := New(builtin).ByName("range"); !ok || a != "builtin-range" {
		t.Errorf("without extras: %q, %v", a, ok)
	}
}
