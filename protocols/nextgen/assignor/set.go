package assignor

import "github.com/rebalsim/rebalsim/internal/registry"

// Set looks server-side assignors up by name: the built-in ones plus those
// a caller plugs in (package protocols, Models.ServerAssignors).
type Set = registry.Set[Assignor]

// NewSet returns the built-in assignors plus extra, which win by name.
func NewSet(extra ...Assignor) Set { return registry.New(builtins(), extra...) }
