package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"rebalsim/sim"
)

// expectKeys lists the keys of an expect: entry: the checks, then a max_
// and a min_ bound for every metric of the results contract.
func expectKeys() []string {
	keys := []string{"protocols", "converged_within", "no_double_ownership", "no_zombie_processing"}
	for _, prefix := range []string{"max_", "min_"} {
		for _, m := range sim.MetricNames() {
			keys = append(keys, prefix+m)
		}
	}
	return keys
}

func (d *decoder) expectations(n *yaml.Node, s *sim.Scenario) {
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
		x := sim.Expectation{Line: it.Line}
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
				x.NoDoubleOwnership, _ = d.boolean(e.val, e.key)
			case "no_zombie_processing":
				x.NoZombieProcessing, _ = d.boolean(e.val, e.key)
			default:
				isMax := strings.HasPrefix(e.key, "max_")
				metric := e.key[len("max_"):]
				if v, ok := d.bound(e.val, e.key); ok {
					x.Bounds = append(x.Bounds, sim.Bound{Metric: metric, IsMax: isMax, Value: v})
				}
			}
		}
		s.Expect = append(s.Expect, x)
	}
}

// bound decodes a metric bound. Metrics are plain numbers (seconds for the
// *_seconds ones), so a duration here is a near miss worth explaining.
func (d *decoder) bound(n *yaml.Node, key string) (float64, bool) {
	if v := d.value(n); v != nil && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
		if dur, err := time.ParseDuration(v.Value); err == nil {
			d.failf(v, "%s is a number of seconds: write %s, not %s", key, strconv.FormatFloat(dur.Seconds(), 'f', -1, 64), v.Value)
			return 0, false
		}
	}
	return d.number(n, key)
}
