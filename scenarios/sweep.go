package scenarios

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// MaxSweepSeeds bounds the seeds: of a sweep block.
const MaxSweepSeeds = 1_000_000_000

// SweepSpec is a scenario's `sweep:` block: the grid of variations and the
// number of seeds `rebalsim sweep` runs at each grid point. A single run
// (sim.Run, rebalsim run) ignores it.
type SweepSpec struct {
	// Seeds is how many seeds each grid point runs, counting up from the
	// scenario's seed; 0 means the block does not say.
	Seeds int
	// Vary lists the varied values in file order. The grid is their
	// Cartesian product, the first variation changing slowest.
	Vary []Variation
}

// Variation is one varied scenario value: a path into the scenario file,
// as Override understands it ("members",
// "defaults.session_timeout", "topics.orders.partitions",
// "events[1].pause.for"), and the values it takes.
type Variation struct {
	Path string
	// Values are YAML values as they would be written in the file
	// ("10s", "50", "[range]"), in the order the grid visits them.
	Values []string
	// Line is the source line of the entry (0 if unknown).
	Line int
}

// A scenario's sweep: block says what `rebalsim sweep` varies:
//
//	sweep:
//	  seeds: 200                      # seeds per grid point, from seed: up
//	  vary:                           # path: [values]; the grid is their product
//	    members: [10, 50, 100, 500]
//	    session_timeout: [10s, 45s]
//	    topics.orders.partitions: [12, 48]
//
// Paths are those of Override. Each path is checked against the file here
// (a path that leads nowhere is an error at its key); each value is
// checked when the sweep builds its grid point, by decoding the file with
// the value in place.
func (d *decoder) sweep(n *yaml.Node, s *File, root *yaml.Node) {
	f, ok := d.mapping(n, "sweep", []string{"seeds", "vary"})
	if !ok {
		return
	}
	spec := &SweepSpec{}
	if e := f.get("seeds"); e != nil {
		d.mark("sweep.seeds", e.val)
		if v, ok := d.integer(e.val, "seeds", 1, MaxSweepSeeds); ok {
			spec.Seeds = int(v)
		}
	}
	if e := f.get("vary"); e != nil {
		d.mark("sweep.vary", e.val)
		spec.Vary = d.variations(e.val, root)
	}
	s.Sweep = spec
}

func (d *decoder) variations(n *yaml.Node, root *yaml.Node) []Variation {
	m := d.value(n)
	if m == nil || isNull(m) {
		return nil
	}
	if m.Kind != yaml.MappingNode {
		d.failf(m, "vary must be a mapping of paths to lists of values, such as {members: [10, 50], session_timeout: [10s, 45s]}, found %s", describe(m))
		return nil
	}
	var out []Variation
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := d.value(m.Content[i])
		if k == nil {
			return out
		}
		if k.Kind != yaml.ScalarNode || isNull(k) {
			d.failf(k, "keys in vary must be paths such as defaults.session_timeout, found %s", describe(k))
			continue
		}
		path := k.Value
		if first, dup := seen[path]; dup {
			d.failf(k, "path %q appears twice in vary (first at line %d)", short(path), first)
			continue
		}
		seen[path] = k.Line
		if _, err := parsePath(path); err != nil {
			d.failf(k, "%v", err)
			continue
		}
		items, ok := d.list(m.Content[i+1], path, "[10, 50, 100]")
		if !ok {
			continue
		}
		if len(items) == 0 {
			d.failf(d.value(m.Content[i+1]), "vary %s lists no values; give at least one", short(path))
			continue
		}
		v := Variation{Path: path, Line: k.Line}
		values := map[string]bool{}
		for _, it := range items {
			if it = d.value(it); it == nil {
				return out
			}
			text := ValueText(it)
			if values[text] {
				d.failf(it, "value %s appears twice in vary %s, which would run the same grid point twice", short(text), short(path))
				continue
			}
			values[text] = true
			v.Values = append(v.Values, text)
		}
		if msg := checkVariation(root, v); msg != "" {
			d.failf(k, "%s", msg)
			continue
		}
		out = append(out, v)
	}
	return out
}

// checkVariation applies each value of v to a copy of the file's tree and
// returns the first problem with the path itself (an unknown key, a
// missing list item), or "".
func checkVariation(root *yaml.Node, v Variation) string {
	for _, value := range v.Values {
		o := &overrider{root: copyNode(root, 0)}
		if err := o.apply(Override{Path: v.Path, Value: value}); err != nil {
			if e, ok := err.(*Error); ok {
				return e.Message
			}
			return err.Error()
		}
	}
	return ""
}

// ValueText writes a YAML value the way an override takes it: a plain
// scalar as written, anything else in flow style ("[range]",
// "{dist: uniform, min: 1ms, max: 5ms}"), aliases resolved.
func ValueText(n *yaml.Node) string {
	n = resolve(n)
	if n == nil {
		return ""
	}
	if n.Kind == yaml.ScalarNode && n.Style == 0 {
		return n.Value
	}
	c := flowCopy(n, 0)
	b, err := yaml.Marshal(c)
	if err != nil {
		return n.Value
	}
	return strings.TrimSpace(string(b))
}

// flowCopy copies n with aliases resolved, comments dropped and
// collections in flow style.
func flowCopy(n *yaml.Node, depth int) *yaml.Node {
	n = resolve(n)
	c := &yaml.Node{Kind: n.Kind, Tag: n.Tag, Value: n.Value, Style: n.Style}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		c.Style = yaml.FlowStyle
	}
	if depth > 100 {
		return c
	}
	for _, ch := range n.Content {
		c.Content = append(c.Content, flowCopy(ch, depth+1))
	}
	return c
}
