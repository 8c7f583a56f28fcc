package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Override sets one value of a scenario file before the file is decoded,
// so that the value goes through exactly the checks and messages a value
// written in the file would. Sweeps are built from overrides: one grid
// point is the scenario file plus one override per varied path.
//
// Path is a dotted path into the file's YAML:
//
//	defaults.session_timeout      a key of a mapping (added if the file leaves it out)
//	group.heartbeat_interval
//	network.latency               the value may be any YAML: 5ms or {dist: uniform, min: 1ms, max: 5ms}
//	topics.orders.partitions      a list item by its name: (topics) or id: (members)
//	topics[orders.v2].partitions  the same, for names with dots
//	topics[0].partitions          a list item by position, from 0
//	events[1].pause.for
//	members[0].count
//
// and a few shorthands for what sweeps vary most:
//
//	members=N             the group's member count (see below)
//	partitions=N          every topic's partitions
//	latency=V             network.latency
//	seed=N, duration=D    the top-level keys
//	session_timeout=V     and every other consumer setting key: defaults.<key>
//	                      (the client's config; the KIP-848 protocol's session
//	                      timeout and heartbeat interval are the broker's,
//	                      group.session_timeout and group.heartbeat_interval)
//
// members=N sets the number of members to N. Members written without
// count: keep their ids and count towards N; the count: entries share the
// rest in proportion to their counts (at least one each), and entries that
// share an id template and numbered on from each other ({count: 3, id:
// "c{i}"} then {count: 3, id: "c{i}", from: 4}) are renumbered so that they
// still do. A list of plain ids ({id: c1}, {id: c2}, ...) with no other
// keys becomes {count: N, id: "c{i}"}. Events keep naming members as
// written, so `members: all` in a rolling_restart means all N members, and
// an event naming a member that N leaves out is an error.
//
// Value is YAML, as it would be written after the key in the file.
type Override struct {
	Path  string
	Value string
}

// String returns the override as written on a command line: path=value.
func (o Override) String() string { return o.Path + "=" + o.Value }

// ParseOverride reads "path=value", the form of --vary values and of
// Override.String.
func ParseOverride(s string) (Override, error) {
	path, value, ok := strings.Cut(s, "=")
	path, value = strings.TrimSpace(path), strings.TrimSpace(value)
	switch {
	case !ok:
		return Override{}, fmt.Errorf("override %q has no '=': write path=value, such as defaults.session_timeout=10s", s)
	case path == "":
		return Override{}, fmt.Errorf("override %q has no path before '='", s)
	case value == "":
		return Override{}, fmt.Errorf("override %q has no value after '='", s)
	}
	if _, err := parsePath(path); err != nil {
		return Override{}, err
	}
	return Override{Path: path, Value: value}, nil
}

// ParseWith is Parse with overrides applied, in order, to the file's YAML
// before it is decoded. A problem in an overridden value is reported at
// the place in the file the override replaced, with the override named
// ("t.yaml:9:20: session_timeout is a duration and needs a unit ... (set by
// override session_timeout=10)"); a path that leads nowhere is an error
// naming the nearest valid key or item.
func ParseWith(source string, data []byte, overrides []Override) (*File, error) {
	return Loader{}.ParseWith(source, data, overrides)
}

// ParseWith is Parse with overrides applied (see the function ParseWith).
func (l Loader) ParseWith(source string, data []byte, overrides []Override) (*File, error) {
	if source == "" {
		source = "<scenario>"
	}
	root, err := parseYAML(source, data)
	if err != nil {
		return nil, err
	}
	if len(overrides) == 0 {
		return decodeRoot(source, root, l.names())
	}
	if root.Kind != yaml.MappingNode {
		return decodeRoot(source, root, l.names()) // the decoder says what is wrong with it
	}
	o := &overrider{source: source, root: root}
	for _, ov := range overrides {
		if err := o.apply(ov); err != nil {
			return nil, err
		}
	}
	s, err := decodeRoot(source, root, l.names())
	if err != nil {
		return nil, o.explain(err)
	}
	o.fixLines(s)
	return s, nil
}

// Values an override brings into the tree carry made-up line numbers,
// overrideLine + k<<overrideShift + their line within the value, so that a
// problem the decoder finds in them can be traced to override k and
// reported where that override took effect.
const (
	overrideLine  = 1 << 24
	overrideShift = 12
)

// overrider applies overrides to a file's YAML tree.
type overrider struct {
	source string
	root   *yaml.Node
	// applied are the overrides so far; at[k] is where override k took
	// effect in the file (the value it replaced, or the mapping it added
	// a key to).
	applied []Override
	at      [][2]int
}

// expandShorthand returns the path a one-word shorthand stands for:
// latency is network.latency, a consumer setting key is defaults.<key>.
// Other paths are returned as they are.
func expandShorthand(steps []step) []step {
	if len(steps) != 1 || steps[0].indexed {
		return steps
	}
	switch key := steps[0].key; {
	case key == "latency":
		return []step{{key: "network"}, {key: "latency"}}
	case slices.Contains(settingKeys(), key):
		return []step{{key: "defaults"}, {key: key}}
	}
	return steps
}

// OverrideTarget names the place an override path sets, written one way
// however the path is spelt: latency and network.latency give the same
// string, as do session_timeout and defaults.session_timeout, or
// topics.orders.rate and topics[orders].rate. A path that does not parse
// is returned as it is. (A list item by position and the same item by
// name still differ: which item a name is depends on the file.)
func OverrideTarget(path string) string {
	steps, err := parsePath(path)
	if err != nil {
		return path
	}
	var b strings.Builder
	for i, st := range expandShorthand(steps) {
		switch {
		case st.indexed:
			b.WriteString(st.String())
		case strings.ContainsAny(st.key, ".[]"):
			b.WriteString("[" + st.key + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(st.key)
		}
	}
	return b.String()
}

// shorthandKeys are the one-word paths that are not top-level keys.
func shorthandKeys() []string { return []string{"partitions", "latency"} }

// fixedKeys are the top-level keys an override may not set, with why.
func fixedKey(key string) string {
	switch key {
	case "protocols":
		return "protocols are not a scenario value to vary: every sweep runs each protocol (pick them with --protocols)"
	case "name", "description":
		return key + " names the scenario; a sweep reports it once"
	case "expect":
		return "expectations are checked by rebalsim check, not varied"
	case "sweep":
		return "the sweep block describes the grid; it cannot be a point of it"
	}
	return ""
}

// overridableTopKeys are the top-level keys an override may set.
func overridableTopKeys() []string {
	var out []string
	for _, k := range topKeys() {
		if fixedKey(k) == "" {
			out = append(out, k)
		}
	}
	return out
}

// OverridePaths lists the one-word paths an override accepts (shorthands
// and top-level keys), for help texts and suggestions.
func OverridePaths() []string {
	out := append(overridableTopKeys(), shorthandKeys()...)
	return append(out, settingKeys()...)
}

func (o *overrider) apply(ov Override) error {
	k := len(o.applied)
	o.applied = append(o.applied, ov)
	o.at = append(o.at, [2]int{o.root.Line, o.root.Column})
	steps, err := parsePath(ov.Path)
	if err != nil {
		return o.fail(k, 0, 0, "%v", err)
	}
	val, err := o.value(k, ov)
	if err != nil {
		return err
	}
	if len(steps) == 1 && !steps[0].indexed {
		switch key := steps[0].key; {
		case key == "members" && val.Kind == yaml.ScalarNode:
			return o.resizeMembers(k, val)
		case key == "partitions":
			return o.setPartitions(k, val)
		}
	}
	steps = expandShorthand(steps)
	first := steps[0].key
	if msg := fixedKey(first); msg != "" {
		return o.fail(k, 0, 0, "%s cannot be overridden: %s", first, msg)
	}
	if !slices.Contains(topKeys(), first) {
		return o.fail(k, 0, 0, "unknown path %q%s (paths start with a top-level key: %s; or are a shorthand: %s, or a consumer setting such as session_timeout)",
			ov.Path, didYouMean(first, OverridePaths()), strings.Join(overridableTopKeys(), ", "), strings.Join(shorthandKeys(), ", "))
	}
	return o.set(k, steps, val)
}

// value parses the override's value as YAML and marks its nodes as the
// override's (see overrideLine).
func (o *overrider) value(k int, ov Override) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(ov.Value), &doc); err != nil {
		return nil, o.fail(k, 0, 0, "the value is not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, o.fail(k, 0, 0, "the override has no value")
	}
	val := doc.Content[0]
	o.mark(k, val)
	return val, nil
}

// mark gives n and everything under it override k's line numbers.
func (o *overrider) mark(k int, n *yaml.Node) {
	if n == nil {
		return
	}
	n.Line = overrideLine + k<<overrideShift + min(max(n.Line, 1), 1<<overrideShift) - 1
	for _, c := range n.Content {
		o.mark(k, c)
	}
}

// fail returns an error about override k at line:col of the file (or
// with no position when line is 0).
func (o *overrider) fail(k, line, col int, format string, args ...any) error {
	return &Error{Source: o.source, Line: line, Column: col,
		Message: fmt.Sprintf("override %s: %s", o.text(k), fmt.Sprintf(format, args...))}
}

// text writes override k for a message: on one line, cut if long.
func (o *overrider) text(k int) string {
	return short(strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(o.applied[k].String()))
}

// step is one step of a path: a key, or a list item by position or name.
type step struct {
	key     string
	index   int
	indexed bool // [index]
}

func (s step) String() string {
	if s.indexed {
		return "[" + strconv.Itoa(s.index) + "]"
	}
	return s.key
}

// parsePath splits "topics[orders.v2].partitions" into steps. A bracket
// holds a position (a whole number) or an item's name.
func parsePath(path string) ([]step, error) {
	bad := func(why string) error { return fmt.Errorf("path %q: %s", path, why) }
	if strings.ContainsFunc(path, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return nil, bad("a path has no spaces or control characters")
	}
	var steps []step
	rest := path
	for rest != "" {
		switch rest[0] {
		case '.':
			if len(steps) == 0 || rest == "." || rest[1] == '.' || rest[1] == '[' {
				return nil, bad("a '.' must separate two keys")
			}
			rest = rest[1:]
			continue
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, bad("a '[' has no matching ']'")
			}
			inner := strings.Trim(strings.TrimSpace(rest[1:end]), `"'`)
			if inner == "" {
				return nil, bad("[] needs a position or a name")
			}
			if len(steps) == 0 {
				return nil, bad("a path starts with a key, such as topics[0]")
			}
			if i, err := strconv.Atoi(inner); err == nil {
				if i < 0 {
					return nil, bad("positions count from 0")
				}
				steps = append(steps, step{index: i, indexed: true})
			} else {
				steps = append(steps, step{key: inner})
			}
			rest = rest[end+1:]
			if rest != "" && rest[0] != '.' && rest[0] != '[' {
				return nil, bad("a ']' must be followed by '.', '[' or the end")
			}
			continue
		}
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			end = len(rest)
		}
		if len(steps) > 0 && path[len(path)-len(rest)-1] != '.' {
			return nil, bad("a '.' must separate two keys")
		}
		steps = append(steps, step{key: rest[:end]})
		rest = rest[end:]
	}
	if len(steps) == 0 {
		return nil, bad("the path is empty")
	}
	return steps, nil
}

// set puts val at the place steps lead to, adding missing mapping keys on
// the way. Aliased values on the way are copied first, so that an
// override changes one place only.
func (o *overrider) set(k int, steps []step, val *yaml.Node) error {
	cur := o.root
	// anchor is the deepest node on the way that the file wrote: where a
	// problem with an added key is reported.
	anchor := [2]int{o.root.Line, o.root.Column}
	for i, st := range steps {
		last := i == len(steps)-1
		where := pathString(steps[:i])
		var slot **yaml.Node
		switch {
		case cur.Kind == yaml.SequenceNode && st.indexed:
			if st.index >= len(cur.Content) {
				return o.fail(k, cur.Line, cur.Column, "%s has %d items, so %s[%d] does not exist (positions count from 0)",
					where, len(cur.Content), where, st.index)
			}
			slot = &cur.Content[st.index]
		case cur.Kind == yaml.SequenceNode:
			j, names := itemNamed(cur, st.key)
			if j < 0 {
				if len(names) == 0 {
					return o.fail(k, cur.Line, cur.Column, "the items of %s have no names; pick one by position, as in %s[0]", where, where)
				}
				return o.fail(k, cur.Line, cur.Column, "%s has no item named %q%s (names: %s)",
					where, short(st.key), didYouMean(st.key, names), strings.Join(abbreviateNames(names), ", "))
			}
			slot = &cur.Content[j]
		case cur.Kind == yaml.MappingNode && st.indexed:
			return o.fail(k, cur.Line, cur.Column, "%s is a mapping, not a list; %s[%d] needs a list", where, where, st.index)
		case cur.Kind == yaml.MappingNode:
			j := keyIndex(cur, st.key)
			if j < 0 {
				keyNode := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: st.key, Line: 1, Column: 1}
				o.mark(k, keyNode)
				var child *yaml.Node
				switch {
				case last:
					child = val
				case steps[i+1].indexed:
					return o.fail(k, cur.Line, cur.Column, "%s has no %s list to pick %s%s from", orTop(where), st.key, st.key, steps[i+1])
				default:
					child = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1}
					o.mark(k, child)
				}
				if last {
					o.at[k] = anchor
				}
				cur.Content = append(cur.Content, keyNode, child)
				j = len(cur.Content) - 2
			}
			slot = &cur.Content[j+1]
		default:
			return o.fail(k, cur.Line, cur.Column, "%s is %s, so it has no %s; override %s itself", where, describe(cur), st, where)
		}
		if last {
			if old := *slot; old != val {
				o.at[k] = [2]int{old.Line, old.Column}
			}
			*slot = val
			return nil
		}
		cur = unshare(slot)
		if cur.Line < overrideLine {
			anchor = [2]int{cur.Line, cur.Column}
		}
		if isNull(cur) && !steps[i+1].indexed {
			// `defaults:` with nothing after it: an empty mapping.
			*slot = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: cur.Line, Column: cur.Column}
			cur = *slot
		}
	}
	return nil
}

func orTop(where string) string {
	if where == "" {
		return "the scenario"
	}
	return where
}

// pathString writes steps back as a path, for messages.
func pathString(steps []step) string {
	var b strings.Builder
	for i, st := range steps {
		if i > 0 && !st.indexed {
			b.WriteByte('.')
		}
		b.WriteString(st.String())
	}
	return b.String()
}

// unshare makes the node in slot one that no alias reaches, so that
// changing it changes one place: an alias is replaced by a copy of what it
// names, and an anchored node by a copy of itself (the aliases keep the
// original).
func unshare(slot **yaml.Node) *yaml.Node {
	n := resolve(*slot)
	if n == nil {
		n = *slot // an alias to nothing: the decoder reports it
	}
	if n != *slot || n.Anchor != "" {
		n = copyNode(n, 0)
		n.Anchor = ""
		*slot = n
	}
	return n
}

// copyNode copies n deeply; aliases inside it stay aliases.
func copyNode(n *yaml.Node, depth int) *yaml.Node {
	c := *n
	if depth > 10_000 {
		return &c
	}
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = copyNode(ch, depth+1)
	}
	return &c
}

// resolve follows aliases, read-only.
func resolve(n *yaml.Node) *yaml.Node {
	for hops := 0; n != nil && n.Kind == yaml.AliasNode && hops < 100; hops++ {
		n = n.Alias
	}
	return n
}

// keyIndex returns the index in m.Content of key's key node, or -1.
func keyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := resolve(m.Content[i]); k != nil && k.Kind == yaml.ScalarNode && k.Value == key {
			return i
		}
	}
	return -1
}

// itemNamed finds the item of a list whose name: (topics) or id:
// (members) is name, and returns its index, or -1 and the names there are.
func itemNamed(list *yaml.Node, name string) (int, []string) {
	var names []string
	for i, it := range list.Content {
		it = resolve(it)
		n := peekString(it, "name")
		if n == "" {
			n = peekString(it, "id")
		}
		if n == name {
			return i, nil
		}
		if n != "" {
			names = append(names, n)
		}
	}
	return -1, names
}

func abbreviateNames(names []string) []string {
	if len(names) > 8 {
		return append(slices.Clip(names[:8]), "…")
	}
	return names
}

// topSection returns the value of a top-level key, unshared, or nil.
func (o *overrider) topSection(key string) *yaml.Node {
	j := keyIndex(o.root, key)
	if j < 0 {
		return nil
	}
	return unshare(&o.root.Content[j+1])
}

// setKey sets key in mapping m to val, adding the key if m lacks it.
func setKey(m *yaml.Node, key string, val *yaml.Node) {
	if j := keyIndex(m, key); j >= 0 {
		m.Content[j+1] = val
		return
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: val.Line, Column: val.Column}, val)
}

// setPartitions is the partitions=N shorthand: every topic gets N.
func (o *overrider) setPartitions(k int, val *yaml.Node) error {
	topics := o.topSection("topics")
	if topics == nil || topics.Kind != yaml.SequenceNode || len(topics.Content) == 0 {
		return o.fail(k, o.root.Line, o.root.Column, "the scenario has no topics: list whose partitions to set")
	}
	o.at[k] = [2]int{topics.Line, topics.Column}
	for i := range topics.Content {
		t := unshare(&topics.Content[i])
		if t.Kind != yaml.MappingNode {
			continue // the decoder reports the malformed topic
		}
		if j := keyIndex(t, "partitions"); j >= 0 && len(topics.Content) == 1 {
			o.at[k] = [2]int{t.Content[j+1].Line, t.Content[j+1].Column}
		}
		setKey(t, "partitions", copyNode(val, 0))
	}
	return nil
}

// countEntry is one members: entry with count:.
type countEntry struct {
	node        *yaml.Node
	count, from int64
	template    string
}

// resizeMembers is the members=N shorthand (see Override).
func (o *overrider) resizeMembers(k int, val *yaml.Node) error {
	members := o.topSection("members")
	if members == nil || members.Kind != yaml.SequenceNode || len(members.Content) == 0 {
		return o.fail(k, o.root.Line, o.root.Column, "the scenario has no members: list to resize")
	}
	o.at[k] = [2]int{members.Line, members.Column}
	n, err := strconv.ParseInt(strings.ReplaceAll(val.Value, "_", ""), 10, 64)
	if val.ShortTag() != "!!int" || err != nil || n < 1 || n > MaxMembers {
		return o.fail(k, members.Line, members.Column, "members must be a whole number from 1 to %s, found %s", grouped(MaxMembers), describe(val))
	}
	var entries []countEntry
	plain, plainOnlyIDs := 0, true
	var ids []string
	for i := range members.Content {
		it := unshare(&members.Content[i])
		if it.Kind != yaml.MappingNode {
			return nil // the decoder reports the malformed entry
		}
		j := keyIndex(it, "count")
		if j < 0 {
			plain++
			ids = append(ids, peekString(it, "id"))
			plainOnlyIDs = plainOnlyIDs && len(it.Content) == 2 && keyIndex(it, "id") == 0
			continue
		}
		e := countEntry{node: it, from: 1, template: peekString(it, "id")}
		var ok bool
		if e.count, ok = intScalar(it.Content[j+1]); !ok || e.count < 1 || e.count > MaxMembers {
			return nil // the decoder reports the bad count
		}
		if f := keyIndex(it, "from"); f >= 0 {
			if e.from, ok = intScalar(it.Content[f+1]); !ok {
				return nil
			}
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		if !plainOnlyIDs {
			return o.fail(k, members.Line, members.Column,
				`members=N resizes the count: entries of members:, and this list has none; its members have keys besides id:, so it cannot become one {count: N, id: "c{i}"} entry (set members[0].count or write the list)`)
		}
		entry := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle, Line: members.Line, Column: members.Column}
		setKey(entry, "count", scalarAt(val, "!!int", strconv.FormatInt(n, 10)))
		setKey(entry, "id", scalarAt(val, "!!str", idTemplate(ids)))
		members.Content = []*yaml.Node{entry}
		return nil
	}
	rest := n - int64(plain)
	if rest < int64(len(entries)) {
		return o.fail(k, members.Line, members.Column,
			"members=%d is too few: the scenario has %d members without count: and %d count: entries, which keep at least one member each, so at least %d",
			n, plain, len(entries), plain+len(entries))
	}
	counts := shareOut(rest, entries)
	// Entries numbered on from an earlier entry of the same template stay
	// numbered on from it.
	type span struct{ oldEnd, newEnd int64 }
	last := map[string]span{}
	for i, e := range entries {
		from := e.from
		if prev, ok := last[e.template]; ok && e.from == prev.oldEnd+1 {
			from = prev.newEnd + 1
		}
		last[e.template] = span{oldEnd: e.from + e.count - 1, newEnd: from + counts[i] - 1}
		setKey(e.node, "count", scalarAt(val, "!!int", strconv.FormatInt(counts[i], 10)))
		if from != e.from {
			setKey(e.node, "from", scalarAt(val, "!!int", strconv.FormatInt(from, 10)))
		}
	}
	return nil
}

// scalarAt is a scalar the members=N shorthand writes, placed where the
// override's value is, so that a problem with it is reported there.
func scalarAt(val *yaml.Node, tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Line: val.Line, Column: val.Column}
}

// shareOut divides total members among the count: entries: one each, and
// the rest in proportion to their counts by largest remainder (ties to
// the earlier entry), so the result depends only on the file.
func shareOut(total int64, entries []countEntry) []int64 {
	out := make([]int64, len(entries))
	var sum int64
	for i, e := range entries {
		out[i] = 1
		sum += max(e.count, 0)
	}
	extra := total - int64(len(entries))
	if sum == 0 {
		out[0] += extra
		return out
	}
	rems := make([]int64, len(entries))
	given := int64(0)
	for i, e := range entries {
		share := extra * max(e.count, 0)
		out[i] += share / sum
		rems[i] = share % sum
		given += share / sum
	}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rems[b], rems[a]) })
	for _, i := range order[:extra-given] {
		out[i]++
	}
	return out
}

func intScalar(n *yaml.Node) (int64, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	return v, err == nil
}

// idTemplate picks the template for a list of plain ids rewritten as one
// count: entry: "c{i}" for c1, c2, c3, whatever their common prefix is
// when they are numbered 1, 2, 3, ..., else "c{i}".
func idTemplate(ids []string) string {
	prefix := ""
	for i, id := range ids {
		m := numbered.FindStringSubmatch(id)
		if m == nil || m[2] != strconv.Itoa(i+1) || (i > 0 && m[1] != prefix) {
			return "c{i}"
		}
		prefix = m[1]
	}
	if prefix == "" {
		return "c{i}"
	}
	return prefix + "{i}"
}

// explain moves the problems found in overridden values to where the
// overrides took effect, and names the override.
func (o *overrider) explain(err error) error {
	var list []*Error
	var one *Error
	switch {
	case errors.As(err, &one) && !strings.Contains(err.Error(), "\n"):
		list = []*Error{one}
	default:
		if l, ok := err.(ErrorList); ok {
			list = l
		} else {
			return err
		}
	}
	for _, e := range list {
		if k, ok := o.overrideOf(e.Line); ok {
			e.Line, e.Column = o.at[k][0], o.at[k][1]
			e.Message += fmt.Sprintf(" (set by override %s)", o.text(k))
		}
		e.Message = o.fixMessageLines(e.Message)
	}
	if len(list) == 1 {
		return list[0]
	}
	sortErrors(list)
	return ErrorList(list)
}

// overrideOf returns which override a made-up line number belongs to.
func (o *overrider) overrideOf(line int) (int, bool) {
	if line < overrideLine {
		return 0, false
	}
	k := (line - overrideLine) >> overrideShift
	return k, k < len(o.at)
}

var (
	lineNumber = regexp.MustCompile(`line (\d{8,})`)
	// numbered splits an id into its prefix and trailing number.
	numbered = regexp.MustCompile(`^(.*?)([0-9]+)$`)
)

// fixMessageLines rewrites made-up line numbers quoted in a message
// ("first at line 16777216").
func (o *overrider) fixMessageLines(msg string) string {
	return lineNumber.ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(m[len("line "):])
		if k, ok := o.overrideOf(n); ok {
			return "line " + strconv.Itoa(o.at[k][0])
		}
		return m
	})
}

// fixLines replaces made-up line numbers that reached the scenario.
func (o *overrider) fixLines(s *File) {
	fix := func(line *int) {
		if k, ok := o.overrideOf(*line); ok {
			*line = o.at[k][0]
		}
	}
	for i := range s.Members {
		fix(&s.Members[i].Line)
	}
	for i := range s.Events {
		fix(&s.Events[i].Line)
	}
	for i := range s.Expect {
		fix(&s.Expect[i].Line)
	}
}
