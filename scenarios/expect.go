package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rebalsim/rebalsim/sim"
)

// MaxSeeds bounds how many seeds one expectation (or `check --seeds`) may
// ask for: enough for a quantile, and a cap on what a typo can cost.
const MaxSeeds = 10_000

// Expectation is one entry of a scenario's `expect:` list, checked by
// `rebalsim check` (package check).
type Expectation struct {
	// Protocols limits the expectation to these runs; empty = every run.
	Protocols []string
	// Bounds are max_<metric> / min_<metric> keys.
	Bounds []Bound
	// ConvergedWithin is the liveness bound: once a disturbance has ended
	// (the last of overlapping ones), the group is stable again within it.
	// It differs from max_convergence_seconds, which counts from each
	// disturbance's start.
	ConvergedWithin    *time.Duration
	NoDoubleOwnership  bool
	NoZombieProcessing bool
	// DoubleOwnershipHazard is no_double_ownership: false: in this
	// scenario the entry's protocols show double ownership that Kafka
	// itself allows (a hazard the README names). Their safety case is not
	// checked; the entry pins the hazard with min_double_ownership_seconds
	// instead, and the finding stays in every result.
	DoubleOwnershipHazard bool
	// Seeds is how many seeds the expectation is checked on: the
	// scenario's Seed, Seed+1, …, Seed+Seeds-1. 0 means 1 (the scenario's
	// seed only).
	Seeds int
	// Quantile is the fraction of those seeds on which every check of the
	// expectation must hold, in (0, 1]; 0 means 1 (every seed).
	Quantile float64
	Line     int
}

// Bound limits one result metric (see sim.MetricNames).
type Bound struct {
	Metric string
	// Max is an upper bound when IsMax, else a lower bound.
	IsMax bool
	Value float64
	// FractionOf, when set, makes the bound relative: the metric is
	// compared with Value × the same metric of the run of protocol
	// FractionOf on the same seed (`{fraction_of: eager, value: 0.5}`).
	FractionOf string
}

// expectKeys lists the keys of an expect: entry: the checks, then a max_
// and a min_ bound for every metric of the results contract.
func expectKeys() []string {
	keys := []string{"protocols", "converged_within", "no_double_ownership", "no_zombie_processing", "seeds", "quantile"}
	for _, prefix := range []string{"max_", "min_"} {
		for _, m := range sim.MetricNames() {
			keys = append(keys, prefix+m)
		}
	}
	return keys
}

func (d *decoder) expectations(n *yaml.Node, s *File) {
	items, ok := d.list(n, "expect", "[{no_double_ownership: true}]")
	if !ok {
		return
	}
	keys := expectKeys()
	for i, it := range items {
		path := fmt.Sprintf("expect[%d]", i)
		f, ok := d.mapping(it, "expectation", keys)
		if !ok {
			continue
		}
		it = d.value(it)
		d.mark(path, it)
		x := Expectation{Line: it.Line}
		// Bounds keep the file's order, so reports list them as written.
		for _, e := range f.entries {
			d.mark(path+"."+e.key, e.val)
			switch e.key {
			case "protocols":
				x.Protocols, _ = d.strings(e.val, "protocols", path+".protocols")
			case "converged_within":
				if v, ok := d.duration(e.val, e.key); ok {
					x.ConvergedWithin = &v
				}
			case "no_double_ownership":
				v, ok := d.boolean(e.val, e.key)
				x.NoDoubleOwnership, x.DoubleOwnershipHazard = v, ok && !v
			case "no_zombie_processing":
				x.NoZombieProcessing, _ = d.boolean(e.val, e.key)
			case "seeds":
				if v, ok := d.integer(e.val, e.key, 1, MaxSeeds); ok {
					x.Seeds = int(v)
				}
			case "quantile":
				x.Quantile, _ = d.number(e.val, e.key)
			default:
				isMax := strings.HasPrefix(e.key, "max_")
				b := Bound{Metric: e.key[len("max_"):], IsMax: isMax}
				if d.bound(e.val, e.key, path+"."+e.key, &b) {
					x.Bounds = append(x.Bounds, b)
				}
			}
		}
		s.Expect = append(s.Expect, x)
	}
}

// bound decodes a metric bound into b: a number, or a comparison with
// another protocol's run on the same seed, {fraction_of: eager, value: 0.5}.
// Metrics are plain numbers (seconds for the *_seconds ones), so a duration
// here is a near miss worth explaining.
func (d *decoder) bound(n *yaml.Node, key, path string, b *Bound) bool {
	v := d.value(n)
	if v == nil {
		return false
	}
	if v.Kind == yaml.MappingNode {
		f, ok := d.mapping(v, key, []string{"fraction_of", "value"})
		if !ok {
			return false
		}
		complete := true
		for _, want := range []string{"fraction_of", "value"} {
			if f.lacks(want) {
				d.failf(v, "%s compares with another protocol and needs both fraction_of: and value:, as in {fraction_of: eager, value: 0.5}; %s: is missing", key, want)
				complete = false
			}
		}
		for _, e := range f.entries {
			d.mark(path+"."+e.key, e.val)
			switch e.key {
			case "fraction_of":
				b.FractionOf, ok = d.str(e.val, key+".fraction_of")
			case "value":
				b.Value, ok = d.number(e.val, key+".value")
			}
			complete = complete && ok
		}
		return complete
	}
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
		if dur, err := time.ParseDuration(v.Value); err == nil {
			d.failf(v, "%s is a number of seconds: write %s, not %s", key, strconv.FormatFloat(dur.Seconds(), 'f', -1, 64), v.Value)
			return false
		}
	}
	if v.Kind != yaml.ScalarNode {
		d.failf(v, "%s must be a number, or a comparison such as {fraction_of: eager, value: 0.5}, found %s", key, describe(v))
		return false
	}
	var ok bool
	b.Value, ok = d.number(v, key)
	return ok
}
