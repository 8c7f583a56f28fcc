package assignor

import (
	"github.com/rebalsim/rebalsim/internal/registry"
)

// builtins are Kafka's client-side assignors, in the order their names are
// listed to a user.
func builtins() []Assignor {
	return []Assignor{Range(), RoundRobin(), Sticky(), CooperativeSticky()}
}

// ByName returns the built-in assignor whose protocol name
// (partition.assignment.strategy) is name: "range", "roundrobin", "sticky"
// or "cooperative-sticky".
func ByName(name string) (Assignor, bool) { return NewSet().ByName(name) }

// Names lists the names ByName accepts: range, roundrobin, sticky,
// cooperative-sticky.
func Names() []string { return NewSet().Names() }

// Set looks client-side assignors up by name: the built-in ones plus those
// a caller plugs in (package protocols, Models.ClientAssignors).
type Set = registry.Set[Assignor]

// NewSet returns the built-in assignors plus extra, which win by name.
func NewSet(extra ...Assignor) Set { return registry.New(builtins(), extra...) }
