package swarm

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// TestGeneratedScenariosLoad: every generated scenario is a valid file for
// the normal loader, means one thing (no overlapping events on a member),
// and comes out byte-identical when generated again.
func TestGeneratedScenariosLoad(t *testing.T) {
	kinds := map[string]bool{}
	for seed := uint64(1); seed <= 300; seed++ {
		s := Generate(seed)
		if !valid(s) {
			t.Fatalf("seed %d: generated overlapping events", seed)
		}
		f, err := Build(s)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		again, err := Build(Generate(seed))
		if err != nil || !bytes.Equal(f.YAML, again.YAML) {
			t.Fatalf("seed %d: a second generation differs", seed)
		}
		for _, e := range s.Events {
			kinds[e.Kind] = true
		}
	}
	// 300 seeds draw every disturbance kind.
	for _, k := range []string{"crash", "leave", "start", "restart", "pause", "stall", "network_partition", "rolling_restart", "add_partitions", "subscribe"} {
		if !kinds[k] {
			t.Errorf("no seed of 1-300 drew a %s", k)
		}
	}
}

// forgetfulModels is a deliberately broken model, plugged in through the
// Go API: its clients skip the application's onPartitionsRevoked, telling
// the protocol the revocation is done while the application never heard
// of it and goes on processing. Every protocol then hands the partition
// to a second member while the first still believes it owns it.
type forgetfulModels struct{ sim.Models }

func (m forgetfulModels) NewClient(self sim.Endpoint, cfg sim.ConsumerConfig) (sim.Client, error) {
	c, err := m.Models.NewClient(self, cfg)
	if err != nil {
		return nil, err
	}
	return &forgetfulClient{Client: c}, nil
}

type forgetfulClient struct{ sim.Client }

// skipRevocations answers every revoke callback among out's at once, and
// the ones those answers ask for, without the application seeing them.
func (c *forgetfulClient) skipRevocations(env sim.ClientEnv, out *sim.Effects) {
	for i := 0; i < len(out.Callbacks); {
		cb := out.Callbacks[i]
		if cb.Kind != sim.CallbackRevoked {
			i++
			continue
		}
		out.Callbacks = append(out.Callbacks[:i], out.Callbacks[i+1:]...)
		c.Client.CallbackDone(env, cb, out)
	}
}

func (c *forgetfulClient) Start(env sim.ClientEnv, out *sim.Effects) {
	c.Client.Start(env, out)
	c.skipRevocations(env, out)
}

func (c *forgetfulClient) Poll(env sim.ClientEnv, out *sim.Effects) {
	c.Client.Poll(env, out)
	c.skipRevocations(env, out)
}

func (c *forgetfulClient) Receive(env sim.ClientEnv, msg sim.Message, out *sim.Effects) {
	c.Client.Receive(env, msg, out)
	c.skipRevocations(env, out)
}

func (c *forgetfulClient) Timer(env sim.ClientEnv, id sim.TimerID, out *sim.Effects) {
	c.Client.Timer(env, id, out)
	c.skipRevocations(env, out)
}

func (c *forgetfulClient) CallbackDone(env sim.ClientEnv, cb sim.Callback, out *sim.Effects) {
	c.Client.CallbackDone(env, cb, out)
	c.skipRevocations(env, out)
}

func (c *forgetfulClient) Subscribe(env sim.ClientEnv, topics []string, out *sim.Effects) {
	c.Client.Subscribe(env, topics, out)
	c.skipRevocations(env, out)
}

// TestSwarmFindsAndShrinksAReintroducedDefect: the swarm finds the broken
// model's double ownership within ten seeds, and shrinks it to a small
// file that the normal loader reads, that still fails under the broken
// model, and that passes the safety check under the real one.
func TestSwarmFindsAndShrinksAReintroducedDefect(t *testing.T) {
	broken := forgetfulModels{protocols.Default()}
	dir := t.TempDir()
	rep, err := Run(context.Background(), Options{Seeds: 10, Parallel: 2, Models: broken, Corpus: dir})
	if err != nil {
		t.Fatal(err)
	}
	var found *Found
	for i, d := range rep.Defects {
		if d.Class == Safety && d.File != "" {
			found = &rep.Defects[i]
			break
		}
	}
	if found == nil {
		t.Fatalf("no double ownership found in 10 seeds; defects: %v", rep.Defects)
	}
	sc, err := scenarios.LoadFile(found.File)
	if err != nil {
		t.Fatalf("the reproducer does not load: %v", err)
	}
	// Small: the defect needs two members and one rebalance that moves a
	// partition, so a handful of each is the most a good shrink leaves.
	t.Logf("seed %d: %s\nshrunk from %d members and %d events to:\n%s", found.Seed, found.Failure, found.Members, found.Events, found.Shrunk)
	if len(sc.Members) > 3 || len(sc.Events) > 3 {
		t.Errorf("shrunk to %d members and %d events (from %d and %d); want at most 3 and 3:\n%s",
			len(sc.Members), len(sc.Events), found.Members, found.Events, found.Shrunk)
	}
	if !strings.Contains(string(found.Shrunk), "no_double_ownership: true") {
		t.Errorf("the reproducer does not state the check it fails:\n%s", found.Shrunk)
	}
	for _, p := range sc.Protocols {
		bad, err := sim.Run(sc.Scenario, broken, sim.RunOptions{Protocol: p})
		if err != nil {
			t.Fatal(err)
		}
		good, err := sim.Run(sc.Scenario, protocols.Default(), sim.RunOptions{Protocol: p})
		if err != nil {
			t.Fatal(err)
		}
		if bad.Metrics.DoubleOwnershipSeconds == 0 {
			t.Errorf("%s: the reproducer no longer shows double ownership under the broken model", p)
		}
		if good.Metrics.DoubleOwnershipSeconds != 0 {
			t.Errorf("%s: the reproducer shows double ownership under the real model too: the shrink kept the wrong failure", p)
		}
	}
}
