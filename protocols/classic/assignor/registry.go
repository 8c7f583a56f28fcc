package assignor

import (
	"slices"

	"github.com/rebalsim/rebalsim/internal/registry"
)

// ByName returns the assignor whose protocol name
// (partition.assignment.strategy) is name: "range", "roundrobin", "sticky"
// or "cooperative-sticky".
func ByName(name string) (Assignor, bool) {
	switch name {
	case "range":
		return Range(), true
	case "roundrobin":
		return RoundRobin(), true
	case "sticky":
		return Sticky(), true
	case "cooperative-sticky":
		return CooperativeSticky(), true
	}
	return nil, false
}

// Names lists the names ByName accepts, sorted.
func Names() []string {
	names := []string{Range().Name(), RoundRobin().Name(), Sticky().Name(), CooperativeSticky().Name()}
	slices.Sort(names)
	return names
}

// Set looks client-side assignors up by name: the built-in ones plus those
// a caller plugs in (package protocols, Models.ClientAssignors).
type Set = registry.Set[Assignor]

// NewSet returns the built-in assignors plus extra, which win by name.
func NewSet(extra ...Assignor) Set { return registry.New(ByName, extra...) }
