// Package rebalsim runs Kafka consumer-group rebalance scenarios under the
// classic eager, classic cooperative (KIP-429) and next-generation
// (KIP-848) protocols and returns comparable results.
//
// A minimal use, from a scenario file to its metrics:
//
//	f, err := scenarios.LoadFile("group.yaml")
//	if err != nil { ... }
//	res, err := rebalsim.Run(f.Scenario, rebalsim.Options{})
//	if err != nil { ... }
//	for _, run := range res.Runs {
//		fmt.Println(run.Protocol, run.Metrics.DowntimePartitionSeconds)
//	}
//
// Every run is deterministic: the same scenario, seed and rebalsim version
// give byte-identical results on any machine.
package rebalsim

import (
	"fmt"
	"io"
	"slices"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/sim"
)

// Version is rebalsim's version, recorded in every result.
const Version = "0.1.0"

// Options tune Run.
type Options struct {
	// Protocols to run; empty means the scenario's list, else every
	// implemented protocol.
	Protocols []string
	// Seed overrides the scenario's seed when non-zero.
	Seed uint64
	// Timeline records per-partition ownership history (default on in the
	// CLI; large for big groups).
	Timeline bool
	// ShuffleTies orders simultaneous events randomly, from the seed.
	ShuffleTies bool
	// Trace, when set, returns the writer for one protocol's JSONL trace.
	Trace func(protocol string) (io.Writer, error)
	// Models replaces the protocol models (for custom assignors); nil means
	// protocols.Default().
	Models sim.Models
}

// ProtocolsFor resolves which protocols a run of sc under models covers:
// asked, else the scenario's list, else every protocol the models
// implement; nil models means protocols.Default().
func ProtocolsFor(sc *sim.Scenario, asked []string, models sim.Models) ([]string, error) {
	implemented := modelsOrDefault(models).Names().Protocols
	list := asked
	if len(list) == 0 {
		list = sc.Protocols
	}
	if len(list) == 0 {
		list = implemented
	}
	for _, p := range list {
		if !slices.Contains(implemented, p) {
			return nil, fmt.Errorf("protocol %q is not implemented (implemented: %v)", p, implemented)
		}
	}
	return list, nil
}

func modelsOrDefault(models sim.Models) sim.Models {
	if models == nil {
		return protocols.Default()
	}
	return models
}

// Results are one scenario's runs under one or more protocols, all on one
// seed: what Run returns. A library user reads the metrics here, in
// package sim's types; Report turns them into the document package report
// renders.
type Results struct {
	// Version is the rebalsim version that produced the runs.
	Version string
	// Scenario is what was run; it is not changed by the run.
	Scenario *sim.Scenario
	// Seed is the seed every run used (Options.Seed, else the scenario's).
	Seed uint64
	// Protocols lists the runs' protocols, in the order of Runs.
	Protocols []string
	// Runs are in comparison order; tables and charts keep it.
	Runs []*sim.Result
}

// Report describes the scenario and gathers the runs into the report
// document that every output is rendered from.
func (r *Results) Report() *report.Report {
	rep := &report.Report{Version: r.Version, Scenario: report.NewScenarioInfo(r.Scenario), Runs: r.Runs}
	rep.Scenario.Seed = r.Seed
	rep.Scenario.Protocols = r.Protocols
	return rep
}

// Run runs sc once under each protocol, on the same seed, and gathers the
// results.
func Run(sc *sim.Scenario, opts Options) (*Results, error) {
	models := modelsOrDefault(opts.Models)
	list, err := ProtocolsFor(sc, opts.Protocols, models)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	res := &Results{Version: Version, Scenario: sc, Seed: sc.Seed, Protocols: list}
	if opts.Seed != 0 {
		res.Seed = opts.Seed
	}
	for _, p := range list {
		ro := sim.RunOptions{Protocol: p, Seed: opts.Seed, Timeline: opts.Timeline, ShuffleTies: opts.ShuffleTies}
		if opts.Trace != nil {
			w, err := opts.Trace(p)
			if err != nil {
				return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
			}
			ro.Trace = w
		}
		r, err := sim.Run(sc, models, ro)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, r)
	}
	return res, nil
}
