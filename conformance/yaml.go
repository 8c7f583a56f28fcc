package conformance

import (
	"fmt"
	"github.com/rebalsim/rebalsim/internal/suggest"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rebalsim/rebalsim/kafka"
)

// node is a YAML node together with the file it came from and the schema
// path that led to it (for example "vectors[3].input.members[0].owned"), so
// that every error can say where the problem is in the file and in the
// schema.
type node struct {
	n    *yaml.Node
	file string
	path string
}

func (n node) line() int { return n.n.Line }

// errorf reports a problem at n as "file:line:col: path: message".
func (n node) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d:%d: %s: %s", n.file, n.n.Line, n.n.Column, n.path, fmt.Sprintf(format, args...))
}

// at names a position for messages that are not errors (skip reasons).
func (n node) at() string { return fmt.Sprintf("%s:%d", n.file, n.n.Line) }

func (n node) child(y *yaml.Node, path string) node {
	for y.Kind == yaml.AliasNode {
		y = y.Alias
	}
	return node{n: y, file: n.file, path: path}
}

func (n node) isNull() bool {
	return n.n.Kind == yaml.ScalarNode && n.n.ShortTag() == "!!null"
}

// describe names what was found, for "want X, found Y" messages.
func (n node) describe() string {
	switch n.n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.isNull() {
			return "null"
		}
		return strconv.Quote(n.n.Value)
	}
	return "a YAML node of kind " + strconv.Itoa(int(n.n.Kind))
}

// field is one key of a mapping.
type field struct {
	key   string
	name  node // the key itself, where messages about the key point
	value node
}

// fields returns a mapping's keys in file order, rejecting non-mappings and
// duplicate keys (which yaml.v3 leaves to the decoder).
func (n node) fields() ([]field, error) {
	if n.n.Kind != yaml.MappingNode {
		return nil, n.errorf("want a mapping, found %s", n.describe())
	}
	seen := map[string]bool{}
	var out []field
	for i := 0; i+1 < len(n.n.Content); i += 2 {
		k := n.n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, n.child(k, n.path).errorf("want a scalar key, found a %s", n.child(k, n.path).describe())
		}
		if seen[k.Value] {
			return nil, n.child(k, n.path+"."+k.Value).errorf("duplicate key %q", k.Value)
		}
		seen[k.Value] = true
		path := n.path + "." + k.Value
		out = append(out, field{key: k.Value, name: n.child(k, path), value: n.child(n.n.Content[i+1], path)})
	}
	return out, nil
}

// items returns a list's elements.
func (n node) items() ([]node, error) {
	if n.n.Kind != yaml.SequenceNode {
		return nil, n.errorf("want a list, found %s", n.describe())
	}
	out := make([]node, len(n.n.Content))
	for i, c := range n.n.Content {
		out[i] = n.child(c, fmt.Sprintf("%s[%d]", n.path, i))
	}
	return out, nil
}

func (n node) str() (string, error) {
	if n.n.Kind != yaml.ScalarNode || n.isNull() {
		return "", n.errorf("want a string, found %s", n.describe())
	}
	return n.n.Value, nil
}

func (n node) int32() (int32, error) {
	if n.n.Kind == yaml.ScalarNode && n.n.ShortTag() == "!!int" {
		if v, err := strconv.ParseInt(n.n.Value, 0, 32); err == nil {
			return int32(v), nil
		}
	}
	return 0, n.errorf("want an integer, found %s", n.describe())
}

func (n node) bool() (bool, error) {
	if n.n.Kind == yaml.ScalarNode && n.n.ShortTag() == "!!bool" {
		return strconv.ParseBool(strings.ToLower(n.n.Value))
	}
	return false, n.errorf("want true or false, found %s", n.describe())
}

func (n node) strings() ([]string, error) {
	items, err := n.items()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		if out[i], err = it.str(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// assignment reads {topic: [partition, ...]}. An empty mapping is an empty
// assignment; partitions must be non-negative integers.
func (n node) assignment() (kafka.Assignment, error) {
	fs, err := n.fields()
	if err != nil {
		return nil, err
	}
	a := kafka.Assignment{}
	for _, f := range fs {
		items, err := f.value.items()
		if err != nil {
			return nil, err
		}
		ps := make([]int32, 0, len(items))
		for _, it := range items {
			p, err := it.int32()
			if err != nil {
				return nil, err
			}
			if p < 0 {
				return nil, it.errorf("want a partition number (≥ 0), found %d", p)
			}
			ps = append(ps, p)
		}
		a[f.key] = ps
	}
	return a.Normalize(), nil
}

// memberAssignments reads {member: {topic: [partition, ...]}}, keeping the
// members' file order.
func (n node) memberAssignments() (map[string]kafka.Assignment, []string, error) {
	fs, err := n.fields()
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]kafka.Assignment, len(fs))
	order := make([]string, 0, len(fs))
	for _, f := range fs {
		a, err := f.value.assignment()
		if err != nil {
			return nil, nil, err
		}
		out[f.key] = a
		order = append(order, f.key)
	}
	return out, order, nil
}

// nearest suggests the known key closest to an unknown one, for messages
// like `unknown key "assigment" (did you mean "assignment"?)`.
func nearest(key string, known []string) string {
	return suggest.Nearest(key, known, nil, len(key)/2+1)
}

// unknownKey phrases an unknown key with its suggestion.
func unknownKey(f field, known []string) string {
	msg := fmt.Sprintf("unknown key %q", f.key)
	if s := nearest(f.key, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg
}
