// Package registry looks assignors up by name: a package's built-in ones
// plus any a caller plugs in, which win over a built-in of the same name.
// Registering a custom assignor under a built-in's name is how a team runs
// scenarios written for that assignor against its own.
package registry

// Named is anything with a protocol name.
type Named interface{ Name() string }

// Set is a lookup of assignors by name.
type Set[A Named] struct {
	builtin []A
	extra   []A
}

// New returns a set of the built-in assignors, in the order their names
// are listed, plus extra.
func New[A Named](builtin []A, extra ...A) Set[A] {
	return Set[A]{builtin: builtin, extra: append([]A(nil), extra...)}
}

// ByName finds the assignor called name; a later extra wins over an
// earlier one, and any extra over a built-in.
func (s Set[A]) ByName(name string) (A, bool) {
	for i := len(s.extra) - 1; i >= 0; i-- {
		if s.extra[i].Name() == name {
			return s.extra[i], true
		}
	}
	for _, a := range s.builtin {
		if a.Name() == name {
			return a, true
		}
	}
	var zero A
	return zero, false
}

// Names lists every name ByName finds, once each: the built-ins in their
// order, then the extras that are not a built-in's name, in the order they
// were first given. Scenario files may name exactly these.
func (s Set[A]) Names() []string {
	var names []string
	seen := map[string]bool{}
	for _, a := range append(append([]A(nil), s.builtin...), s.extra...) {
		if !seen[a.Name()] {
			seen[a.Name()] = true
			names = append(names, a.Name())
		}
	}
	return names
}
