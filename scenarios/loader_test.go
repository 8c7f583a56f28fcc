package scenarios

import (
	"slices"
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

// namedModels is a model set that only registers names: the loader asks a
// model set for nothing else.
type namedModels struct{ names sim.Names }

func (m namedModels) NewCoordinator(sim.GroupConfig) sim.GroupCoordinator { return nil }
func (m namedModels) NewClient(sim.Endpoint, sim.ConsumerConfig) (sim.Client, error) {
	return nil, nil
}
func (m namedModels) Names() sim.Names { return m.names }

// TestLoaderTakesNamesFromTheModels loads one file under two model sets:
// the names it uses are valid exactly when the models register them.
func TestLoaderTakesNamesFromTheModels(t *testing.T) {
	const src = `name: mine
duration: 1m
topics: [{name: t, partitions: 2}]
defaults: {assignors: [mine-client], remote_assignor: mine-server}
group: {assignor: mine-server}
members: [{id: c1}]
`
	mine := namedModels{sim.Names{
		Protocols:       []string{"eager", "nextgen"},
		ClientAssignors: []string{"range", "mine-client"},
		ServerAssignors: []string{"uniform", "mine-server"},
	}}
	sc, err := Loader{Models: mine}.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("the models register every name the file uses: %v", err)
	}
	// A file without protocols: runs every protocol the models implement.
	if !slices.Equal(sc.Protocols, []string{"eager", "nextgen"}) {
		t.Errorf("default protocols %v, want the models' eager, nextgen", sc.Protocols)
	}
	if err := (Loader{Models: mine}).ValidateFile(sc); err != nil {
		t.Errorf("Validate under the same models: %v", err)
	}

	// The built-in models register none of the three custom names; each is
	// reported where the file writes it (columns count from 1: the first
	// name starts after the 23 characters of "defaults: {assignors: ["),
	// with the registered names.
	_, err = Parse("t.yaml", []byte(src))
	want := `t.yaml:4:24: unknown assignor "mine-client" in assignors (client assignors: range, roundrobin, sticky, cooperative-sticky)
t.yaml:4:55: unknown remote_assignor "mine-server" (server assignors: uniform, range)
t.yaml:5:19: unknown group.assignor "mine-server" (server assignors: uniform, range)`
	if err == nil || err.Error() != want {
		t.Errorf("built-in models: error\n%v\nwant\n%s", err, want)
	}

	// A protocol the models do not implement is refused, with theirs.
	_, err = Loader{Models: mine}.Parse("t.yaml", []byte(src+"protocols: [cooperative]\n"))
	want = `t.yaml:7:13: unknown protocol "cooperative" (allowed: eager, nextgen)`
	if err == nil || err.Error() != want {
		t.Errorf("a protocol the models lack: error\n%v\nwant\n%s", err, want)
	}
}
