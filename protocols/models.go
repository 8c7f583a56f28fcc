// Package protocols wires the protocol models into the simulator: it builds
// the group coordinator and, for each consumer incarnation, the client its
// configuration asks for (classic with EAGER or COOPERATIVE, or the KIP-848
// consumer protocol). It is the only package that knows every model, so
// that package sim never imports one.
package protocols

import (
	"fmt"
	"strings"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/classic/assignor"
	"github.com/rebalsim/rebalsim/protocols/cooperative"
	"github.com/rebalsim/rebalsim/protocols/eager"
	"github.com/rebalsim/rebalsim/protocols/nextgen"
	serverassignor "github.com/rebalsim/rebalsim/protocols/nextgen/assignor"
	"github.com/rebalsim/rebalsim/sim"
)

// Models implements sim.Models. Its zero value runs Kafka's own assignors.
//
// ClientAssignors and ServerAssignors plug in assignors of one's own: a
// classic member whose partition.assignment.strategy names one, or a
// consumer group whose preferred server assignor is one, runs it. An
// assignor registered under a built-in name (say "cooperative-sticky")
// replaces the built-in, which runs every scenario written for that
// assignor, the whole library included, against the replacement.
type Models struct {
	ClientAssignors []assignor.Assignor
	ServerAssignors []serverassignor.Assignor
}

// Default returns the models of every implemented protocol with Kafka's
// assignors.
func Default() sim.Models { return Models{} }

// Implemented lists the protocol shorthands the models implement.
func Implemented() []string { return Models{}.Names().Protocols }

// Names lists what the models register: every protocol shorthand, Kafka's
// assignors and the plugged-in ones. A scenario loader given these models
// accepts a file that names a plugged-in assignor.
func (m Models) Names() sim.Names {
	return sim.Names{
		Protocols:       sim.Protocols(),
		ClientAssignors: assignor.NewSet(m.ClientAssignors...).Names(),
		ServerAssignors: serverassignor.NewSet(m.ServerAssignors...).Names(),
	}
}

// NewCoordinator builds the group coordinator. It is the KIP-848 one for
// every run: a group that only ever sees classic members stays a classic
// group, served by classic.Group unchanged, and one that sees a
// ConsumerGroupHeartbeat becomes a consumer group.
func (m Models) NewCoordinator(cfg sim.GroupConfig) sim.GroupCoordinator {
	return nextgen.NewCoordinator(cfg, m.ServerAssignors...)
}

// NewClient builds the client cfg asks for.
func (m Models) NewClient(self sim.Endpoint, cfg sim.ConsumerConfig) (sim.Client, error) {
	switch cfg.GroupProtocol {
	case sim.GroupProtocolClassic:
		set := assignor.NewSet(m.ClientAssignors...)
		var as []assignor.Assignor
		for _, name := range cfg.Assignors {
			a, ok := set.ByName(name)
			if !ok {
				return nil, fmt.Errorf("member %s: unknown assignor %q (known: %v)", cfg.ClientID, name, set.Names())
			}
			as = append(as, a)
		}
		proto, err := classic.RebalanceProtocolOf(as)
		if err != nil {
			return nil, fmt.Errorf("member %s: %w", cfg.ClientID, err)
		}
		var strategy classic.Strategy = eager.Strategy{}
		if proto == kafka.Cooperative {
			strategy = cooperative.Strategy{}
		}
		return classic.NewClient(self, cfg, strategy, as), nil
	case sim.GroupProtocolConsumer:
		return nextgen.NewClient(self, cfg), nil
	}
	return nil, fmt.Errorf("member %s: unknown group.protocol %q (want %s)", cfg.ClientID, cfg.GroupProtocol, strings.Join(sim.GroupProtocols(), " or "))
}
