package scenarios

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/sim"
)

// Limits on what one scenario may declare. They keep a typo (count: 1000000000)
// or a hostile file from exhausting memory; the messages name them.
const (
	// MaxMembers bounds the members after count: expansion.
	MaxMembers = 100_000
	// MaxPartitions bounds the partitions of all topics together, counting
	// the growth add_partitions events bring.
	MaxPartitions = 2_000_000
	// MaxEventActions bounds the events after expansion: an event counts
	// once per member it acts on (members: all counts every member).
	MaxEventActions = 100_000
	// maxFileSize bounds what LoadFile reads.
	maxFileSize = 64 << 20
)

// Defaults for keys a file leaves out (DESIGN.md, "Scenario files").
const (
	defaultSeed    = 1
	defaultRate    = 100 // records per second per partition
	defaultLatency = time.Millisecond
)

// Loader reads scenarios for one set of protocol models: the protocol and
// assignor names a file may use are those the models register, so a file
// can name an assignor plugged in through protocols.Models. The zero
// Loader reads them for protocols.Default(), as LoadFile and Parse do.
type Loader struct {
	// Models are the models the scenarios will run under; nil means
	// protocols.Default().
	Models sim.Models
}

// names returns what the loader's models register.
func (l Loader) names() sim.Names {
	if l.Models == nil {
		return protocols.Default().Names()
	}
	return l.Models.Names()
}

// LoadFile reads and parses the scenario file at path with the built-in
// models' names (Loader.LoadFile). Messages name the file as path is written.
func LoadFile(path string) (*File, error) { return Loader{}.LoadFile(path) }

// LoadFile reads and parses the scenario file at path. Messages name the
// file as path is written.
func (l Loader) LoadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Source: path, Message: "cannot read the scenario: " + unwrapPathError(err)}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, &Error{Source: path, Message: "cannot read the scenario: " + unwrapPathError(err)}
	}
	if len(data) > maxFileSize {
		return nil, &Error{Source: path, Message: fmt.Sprintf("the file is larger than %d MiB, the limit for a scenario", maxFileSize>>20)}
	}
	return l.Parse(path, data)
}

// unwrapPathError drops the path an *os.PathError repeats, since the
// message already starts with it.
func unwrapPathError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// Parse decodes and validates the scenario in data with the built-in
// models' names (Loader.Parse).
func Parse(source string, data []byte) (*File, error) { return Loader{}.Parse(source, data) }

// Parse decodes and validates the scenario in data. source names it in
// messages (a file name; "<scenario>" if empty) and becomes Scenario.Source.
// Keys the file leaves out get their defaults, so the result is complete:
// every GroupConfig field is filled, and a zero there means zero.
func (l Loader) Parse(source string, data []byte) (*File, error) {
	return l.ParseWith(source, data, nil)
}

// decodeRoot is what parsing does once the YAML is read: decode, then check.
func decodeRoot(source string, root *yaml.Node, names sim.Names) (*File, error) {
	d := &decoder{source: source, nodes: map[string]*yaml.Node{}}
	s := d.scenario(root)
	if !d.written("protocols") {
		s.Protocols = slices.Clone(names.Protocols) // every model, in canonical order
	}
	if len(d.errs) > 0 {
		sortErrors(d.errs)
		return nil, asError(d.errs)
	}
	c := newChecker(s, d, names)
	c.run()
	if err := c.err(); err != nil {
		return nil, err
	}
	// What the file leaves out takes the release's default when the run
	// resolves the group (sim.ResolveGroupConfigFor); an explicit 0 is off.
	if g := &s.Scenario.Group; d.written("group.assignment_interval") && g.AssignmentInterval == 0 {
		g.AssignmentInterval = sim.AssignmentIntervalOff
	}
	return s, nil
}

// sortErrors puts errors in file order: sections are decoded in dependency
// order, not in the order they stand in the file.
func sortErrors(errs []*Error) {
	slices.SortStableFunc(errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}

func topKeys() []string {
	return []string{"name", "description", "seed", "duration", "stuck_after", "protocols", "topics", "network",
		"defaults", "group", "members", "events", "autoscaler", "expect", "sweep", "kafka_version"}
}

// scenario decodes the top-level mapping. Sections are read in dependency
// order, not file order: events refer to members, and members: all needs
// them all.
func (d *decoder) scenario(root *yaml.Node) *File {
	s := &sim.Scenario{
		Source:  d.source,
		Name:    strings.TrimSuffix(strings.TrimSuffix(filepath.Base(d.source), ".yaml"), ".yml"),
		Seed:    defaultSeed,
		Network: sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: defaultLatency}},
		Group:   sim.DefaultGroupConfig(),
	}
	file := &File{Scenario: s}
	f, ok := d.mapping(root, "the scenario", topKeys())
	if !ok {
		return file
	}
	d.mark("", root)
	if e := f.get("name"); e != nil {
		s.Name, _ = d.str(e.val, "name")
		d.mark("name", e.val)
	}
	if e := f.get("description"); e != nil {
		s.Description, _ = d.str(e.val, "description")
	}
	s.KafkaVersion = sim.DefaultKafkaVersion
	if e := f.get("kafka_version"); e != nil {
		d.mark("kafka_version", e.val)
		if v, ok := d.str(e.val, "kafka_version"); ok {
			if !slices.Contains(sim.KafkaVersions(), v) {
				d.failf(e.val, "unknown kafka_version %q (allowed: %s)", v, strings.Join(sim.KafkaVersions(), ", "))
			}
			s.KafkaVersion = v
		}
	}
	if e := f.get("seed"); e != nil {
		s.Seed, _ = d.seed(e.val)
	}
	if e := f.get("duration"); e != nil {
		s.Duration, _ = d.duration(e.val, "duration")
		d.mark("duration", e.val)
	} else if f.lacks("duration") {
		d.failf(root, "the scenario has no duration:, the simulated horizon; add one such as duration: 5m")
	}
	if e := f.get("stuck_after"); e != nil {
		d.mark("stuck_after", e.val)
		if v, ok := d.duration(e.val, "stuck_after"); ok {
			if v <= 0 {
				d.failf(d.value(e.val), "stuck_after must be a positive duration such as 1m, found %s", v)
			}
			s.StuckAfter = v
		}
	}
	if e := f.get("protocols"); e != nil {
		d.mark("protocols", e.val)
		if ps, ok := d.strings(e.val, "protocols", "protocols"); ok {
			s.Protocols = ps
		}
	}
	if e := f.get("topics"); e != nil {
		d.mark("topics", e.val)
		d.topics(e.val, s)
	}
	if e := f.get("network"); e != nil && !isNull(d.value(e.val)) {
		d.mark("network", e.val)
		s.Network = d.network(e.val)
	}
	if e := f.get("defaults"); e != nil && !isNull(d.value(e.val)) {
		d.mark("defaults", e.val)
		if df, ok := d.mapping(e.val, "defaults", settingKeys()); ok {
			s.Defaults = d.decodeSettings(df, "defaults")
		}
	}
	if e := f.get("group"); e != nil && !isNull(d.value(e.val)) {
		d.mark("group", e.val)
		d.group(e.val, &s.Group)
	}
	if e := f.get("members"); e != nil {
		d.mark("members", e.val)
		d.members(e.val, s)
	}
	if e := f.get("events"); e != nil {
		d.mark("events", e.val)
		d.events(e.val, s)
	}
	if e := f.get("autoscaler"); e != nil && !isNull(d.value(e.val)) {
		d.mark("autoscaler", e.val)
		d.autoscaler(e.val, s)
	}
	if e := f.get("expect"); e != nil {
		d.mark("expect", e.val)
		d.expectations(e.val, file)
	}
	if e := f.get("sweep"); e != nil && !isNull(d.value(e.val)) {
		d.mark("sweep", e.val)
		d.sweep(e.val, file, root)
	}
	return file
}

func (d *decoder) seed(n *yaml.Node) (uint64, bool) {
	s, ok := d.scalar(n, "seed", "a whole number")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.ReplaceAll(s.Value, "_", ""), 0, 64)
	if s.ShortTag() != "!!int" || err != nil {
		d.failf(s, "seed must be a whole number from 0 to %d, found %s", uint64(1<<64-1), describe(s))
		return 0, false
	}
	return v, true
}

func (d *decoder) topics(n *yaml.Node, s *sim.Scenario) {
	items, ok := d.list(n, "topics", "[{name: orders, partitions: 12}]")
	if !ok {
		return
	}
	for i, it := range items {
		path := fmt.Sprintf("topics[%d]", i)
		what := "topic"
		if name := peekString(it, "name"); name != "" {
			what = fmt.Sprintf("topic %q", short(name))
		}
		f, ok := d.mapping(it, what, []string{"name", "partitions", "rate", "rates", "skew", "hot", "load"})
		if !ok {
			continue
		}
		d.mark(path, it)
		t := sim.TopicSpec{Rate: defaultRate}
		if e := f.get("name"); e != nil {
			t.Name, _ = d.str(e.val, "name")
			d.mark(path+".name", e.val)
		} else if f.lacks("name") {
			d.failf(d.value(it), "%s has no name:; write {name: orders, partitions: 12}", what)
		}
		if e := f.get("partitions"); e != nil {
			p, _ := d.integer(e.val, "partitions", -1<<31, 1<<31-1)
			t.Partitions = int32(p)
			d.mark(path+".partitions", e.val)
		} else if f.lacks("partitions") {
			d.failf(d.value(it), "%s has no partitions:; write {name: %s, partitions: 12}", what, orDefault(t.Name, "orders"))
		}
		if e := f.get("rate"); e != nil {
			t.Rate, _ = d.number(e.val, "rate")
			d.mark(path+".rate", e.val)
		}
		d.topicLoad(f, path, &t)
		s.Topics = append(s.Topics, t)
	}
}

// peekString returns the string value of key in mapping n, without
// reporting anything: it only helps name the mapping in messages.
func peekString(n *yaml.Node, key string) string {
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == key && v.Kind == yaml.ScalarNode && v.ShortTag() != "!!null" {
			return v.Value
		}
	}
	return ""
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// distParams lists the parameters each latency distribution takes.
func distParams(kind sim.DistKind) []string {
	switch kind {
	case sim.DistConstant:
		return []string{"value"}
	case sim.DistUniform:
		return []string{"min", "max"}
	case sim.DistLogNormal:
		return []string{"median", "p99"}
	}
	return nil
}

func distKinds() []string {
	return []string{string(sim.DistConstant), string(sim.DistUniform), string(sim.DistLogNormal)}
}

func (d *decoder) network(n *yaml.Node) sim.NetworkSpec {
	net := sim.NetworkSpec{Latency: sim.Distribution{Kind: sim.DistConstant, Value: defaultLatency}}
	f, ok := d.mapping(n, "network", []string{"latency"})
	if !ok {
		return net
	}
	if e := f.get("latency"); e != nil {
		if dist, ok := d.distribution(e.val, "latency", "network.latency", "{dist: lognormal, median: 2ms, p99: 20ms}, or a plain duration such as 2ms"); ok {
			net.Latency = dist
		}
	}
	return net
}

// distribution decodes a distribution of durations at path: a plain
// duration (constant), or a mapping with dist: and its parameters.
// example is how the key is written correctly, for messages.
func (d *decoder) distribution(n *yaml.Node, key, path, example string) (sim.Distribution, bool) {
	v := d.value(n)
	if v == nil {
		return sim.Distribution{}, false
	}
	d.mark(path, v)
	if v.Kind == yaml.ScalarNode {
		val, ok := d.duration(v, key)
		if ok {
			d.mark(path+".value", v)
		}
		return sim.Distribution{Kind: sim.DistConstant, Value: val}, ok
	}
	all := []string{"dist", "value", "min", "max", "median", "p99"}
	lf, ok := d.mapping(v, key, all)
	if !ok {
		return sim.Distribution{}, false
	}
	de := lf.get("dist")
	if de == nil {
		if lf.lacks("dist") {
			d.failf(v, "%s has no dist:; write %s (allowed dist: %s)", key, example, strings.Join(distKinds(), ", "))
		}
		return sim.Distribution{}, false
	}
	kind, ok := d.str(de.val, "dist")
	if !ok {
		return sim.Distribution{}, false
	}
	if !slices.Contains(distKinds(), kind) {
		d.failf(d.value(de.val), "unknown %s dist %q%s (allowed: %s)", key, short(kind), didYouMean(kind, distKinds()), strings.Join(distKinds(), ", "))
		return sim.Distribution{}, false
	}
	dist := sim.Distribution{Kind: sim.DistKind(kind)}
	params := distParams(dist.Kind)
	for _, p := range lf.entries {
		if p.key != "dist" && !slices.Contains(params, p.key) {
			d.failf(p.keyNode, "%s is not a parameter of the %s distribution, which takes %s", p.key, kind, strings.Join(params, " and "))
		}
	}
	for _, p := range params {
		pe := lf.get(p)
		if pe == nil {
			if lf.lacks(p) {
				d.failf(v, "the %s %s distribution needs %s", kind, key, strings.Join(params, " and "))
			}
			return sim.Distribution{}, false
		}
		val, _ := d.duration(pe.val, p)
		d.mark(path+"."+p, pe.val)
		switch p {
		case "value":
			dist.Value = val
		case "min":
			dist.Min = val
		case "max":
			dist.Max = val
		case "median":
			dist.Median = val
		case "p99":
			dist.P99 = val
		}
	}
	return dist, true
}

func (d *decoder) group(n *yaml.Node, g *sim.GroupConfig) {
	// Broker names such as group.consumer.heartbeat.interval.ms suggest
	// their key once the prefix is gone.
	f, ok := d.mapping(n, "group", groupKeys(), "group_consumer_", "group_")
	if !ok {
		return
	}
	d.decodeGroup(f, g)
}

func memberKeys() []string {
	return append([]string{"id", "count", "from", "start"}, settingKeys()...)
}

// members decodes the members: list, expanding {count: 3, id: "c{i}"}.
// Members of one entry share the values their settings point to; the
// scenario is read-only, and copying a long subscription 100,000 times
// would cost more than the whole file.
func (d *decoder) members(n *yaml.Node, s *sim.Scenario) {
	items, ok := d.list(n, "members", `[{id: c1}, {count: 3, id: "c{i}"}]`)
	if !ok {
		return
	}
	for _, it := range items {
		if it = d.value(it); it == nil {
			return
		}
		if it.Kind == yaml.ScalarNode && !isNull(it) {
			d.failf(it, "each member must be a mapping such as {id: %s}, found %s", short(it.Value), describe(it))
			continue
		}
		what := "member"
		if id := peekString(it, "id"); id != "" {
			what = fmt.Sprintf("member %q", short(id))
		}
		f, ok := d.mapping(it, what, memberKeys())
		if !ok {
			continue
		}
		first := len(s.Members)
		path := fmt.Sprintf("members[%d]", first)
		d.mark(path, it)
		idEntry := f.get("id")
		if idEntry == nil {
			if !f.lacks("id") {
				continue
			}
			d.failf(it, `member has no id:; write {id: c1}, or {count: 3, id: "c{i}"} for several`)
			continue
		}
		id, ok := d.str(idEntry.val, "id")
		if !ok {
			continue
		}
		d.mark(path+".id", idEntry.val)
		if len(id) > maxNameLen {
			d.failf(d.value(idEntry.val), "id %s is longer than %d characters, Kafka's limit for group.instance.id", short(strconv.Quote(id)), maxNameLen)
			continue
		}
		count, from := int64(1), int64(1)
		countEntry, fromEntry := f.get("count"), f.get("from")
		if countEntry != nil {
			if count, ok = d.integer(countEntry.val, "count", 1, MaxMembers); !ok {
				continue
			}
		}
		if fromEntry != nil {
			if countEntry == nil {
				d.failf(fromEntry.keyNode, `from: numbers the members of a count: entry; add count:, as in {count: 3, id: "c{i}", from: 2}`)
				continue
			}
			if from, ok = d.integer(fromEntry.val, "from", 0, 1_000_000_000); !ok {
				continue
			}
		}
		placeholders := strings.Count(id, "{i}")
		switch {
		case countEntry != nil && placeholders == 0 && count > 1:
			d.failf(d.value(idEntry.val), `id %q has no {i} placeholder, so all %d members of this entry would be named %q; write id: "%s{i}"`, id, count, id, id)
			continue
		case countEntry == nil && placeholders > 0:
			d.failf(d.value(idEntry.val), "id %q has the {i} placeholder but no count:; add count: N, or write the id out", id)
			continue
		}
		var start time.Duration
		if e := f.get("start"); e != nil {
			start, _ = d.duration(e.val, "start")
			d.mark(path+".start", e.val)
		}
		settings := d.decodeSettings(f, path)
		if d.memberCount+int(count) > MaxMembers {
			at := idEntry.val
			if countEntry != nil {
				at = countEntry.val
			}
			d.failf(d.value(at), "the scenario declares more than %s members, the limit", grouped(MaxMembers))
			d.halted = true
			return
		}
		d.memberCount += int(count)
		s.Members = slices.Grow(s.Members, int(count))
		d.memberEntry = slices.Grow(d.memberEntry, int(count))
		for k := range count {
			memberID := id
			if placeholders > 0 {
				memberID = strings.ReplaceAll(id, "{i}", strconv.FormatInt(from+k, 10))
			}
			s.Members = append(s.Members, sim.MemberSpec{ID: memberID, Start: start, Settings: settings, Line: it.Line})
			d.memberEntry = append(d.memberEntry, first)
		}
	}
}

// topicLoad decodes a topic's uneven and changing production: rates: (one
// per partition), skew: (drawn around rate:), hot: (some partitions at
// their own rate) and load: (steps over time).
func (d *decoder) topicLoad(f fields, path string, t *sim.TopicSpec) {
	if e := f.get("rates"); e != nil {
		d.mark(path+".rates", e.val)
		if items, ok := d.list(e.val, "rates", "[5000, 100, 100]"); ok {
			for _, it := range items {
				if v, ok := d.number(it, "rates"); ok {
					if v < 0 {
						d.failf(it, "rates are records per second and cannot be negative, found %v", v)
					}
					t.Rates = append(t.Rates, v)
				}
			}
		}
	}
	if e := f.get("skew"); e != nil {
		d.mark(path+".skew", e.val)
		if sf, ok := d.mapping(e.val, "skew", []string{"dist", "s", "sigma"}); ok {
			k := &sim.Skew{}
			if de := sf.get("dist"); de != nil {
				k.Dist, _ = d.str(de.val, "dist")
				if k.Dist != "zipf" && k.Dist != "lognormal" {
					d.failf(d.value(de.val), "skew dist must be zipf or lognormal, found %q", k.Dist)
				}
			} else {
				d.failf(d.value(e.val), "skew has no dist:; write {dist: zipf, s: 1.1} or {dist: lognormal, sigma: 1}")
			}
			if se := sf.get("s"); se != nil {
				if k.S, ok = d.number(se.val, "s"); ok && k.S <= 0 {
					d.failf(d.value(se.val), "skew s must be a positive exponent such as 1.1, found %v", k.S)
				}
			} else if k.Dist == "zipf" {
				d.failf(d.value(e.val), "a zipf skew needs its exponent; write {dist: zipf, s: 1.1}")
			}
			if se := sf.get("sigma"); se != nil {
				if k.Sigma, ok = d.number(se.val, "sigma"); ok && k.Sigma <= 0 {
					d.failf(d.value(se.val), "skew sigma must be positive, such as 1, found %v", k.Sigma)
				}
			} else if k.Dist == "lognormal" {
				d.failf(d.value(e.val), "a lognormal skew needs its sigma; write {dist: lognormal, sigma: 1}")
			}
			t.Skew = k
		}
	}
	if e := f.get("hot"); e != nil {
		d.mark(path+".hot", e.val)
		if hf, ok := d.mapping(e.val, "hot", []string{"partitions", "rate"}); ok {
			h := &sim.HotPartitions{}
			if pe := hf.get("partitions"); pe != nil {
				if items, ok := d.list(pe.val, "partitions", "[0, 7]"); ok {
					for _, it := range items {
						if v, ok := d.integer(it, "hot partitions", 0, int64(max(t.Partitions, 1))-1); ok {
							h.Partitions = append(h.Partitions, int32(v))
						}
					}
				}
			} else {
				d.failf(d.value(e.val), "hot has no partitions:; write {partitions: [0], rate: 5000}")
			}
			if re := hf.get("rate"); re != nil {
				if h.Rate, ok = d.number(re.val, "hot rate"); ok && h.Rate < 0 {
					d.failf(d.value(re.val), "hot rate is records per second and cannot be negative, found %v", h.Rate)
				}
			} else {
				d.failf(d.value(e.val), "hot has no rate:; write {partitions: [0], rate: 5000}")
			}
			t.Hot = h
		}
	}
	if e := f.get("load"); e != nil {
		d.mark(path+".load", e.val)
		if items, ok := d.list(e.val, "load", "[{at: 10m, factor: 3}]"); ok {
			for _, it := range items {
				lf, ok := d.mapping(it, "load step", []string{"at", "factor"})
				if !ok {
					continue
				}
				var st sim.LoadStep
				if ae := lf.get("at"); ae != nil {
					st.At, _ = d.duration(ae.val, "at")
				} else {
					d.failf(d.value(it), "a load step has no at:; write {at: 10m, factor: 3}")
				}
				if fe := lf.get("factor"); fe != nil {
					if st.Factor, ok = d.number(fe.val, "factor"); ok && st.Factor <= 0 {
						d.failf(d.value(fe.val), "factor multiplies the topic's rates and must be positive, found %v", st.Factor)
					}
				} else {
					d.failf(d.value(it), "a load step has no factor:; write {at: 10m, factor: 3}")
				}
				if n := len(t.Load); n > 0 && st.At < t.Load[n-1].At {
					d.failf(d.value(it), "load steps must be in time order: %s comes after %s", st.At, t.Load[n-1].At)
				}
				t.Load = append(t.Load, st)
			}
		}
	}
	if len(t.Rates) > 0 && t.Skew != nil {
		d.failf(d.value(f.get("skew").val), "a topic takes rates: or skew:, not both")
	}
	if len(t.Rates) > int(t.Partitions) && t.Partitions > 0 {
		d.failf(d.value(f.get("rates").val), "rates lists %d partitions but the topic has %d", len(t.Rates), t.Partitions)
	}
}
