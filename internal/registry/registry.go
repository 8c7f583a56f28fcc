// Package registry looks assignors up by name: a package's built-in ones
// plus any a caller plugs in, which win over a built-in of the same name.
// Registering a custom assignor under a built-in's name is how a team runs
// scenarios written for that assignor against its own.
package registry

// Named is anything with a protocol name.
type Named interface{ Name() string }

// Set is a lookup of assignors by name.
type Set[A Named] struct {
	builtin func(name string) (A, bool)
	extra   []A
}

// New returns a set of the built-ins that builtin finds, plus extra.
func New[A Named](builtin func(name string) (A, bool), extra ...A) Set[A] {
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
	if s.builtin == nil {
		var zero A
		return zero, false
	}
	return s.builtin(name)
}
