package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// File is a parsed vector file.
type File struct {
	// Path is the name errors and outcomes use for the file.
	Path string
	// Meta is the file's meta section (commits and directories the vectors
	// were taken from), scalar values only.
	Meta    map[string]string
	Vectors []Vector
}

// Vector is one test vector. The fields common to every kind are exported;
// what a kind asks for is kept in the kind-specific parts the runner reads.
type Vector struct {
	Name string
	// Kind is client_assignor, server_assignor or reconciliation; other
	// kinds load but are skipped.
	Kind string
	// Version is "4.0" (the default) or "trunk".
	Version string
	// Assignors are the assignors the vector runs, one outcome each.
	Assignors []string
	// Source names the Kafka test the vector was extracted from.
	Source Source
	Notes  string
	// Line is where the vector starts in the file.
	Line int

	pos   string // "file:line", for skip reasons and details
	group *groupInput
	want  *expectation
	then  []step
	recon *reconciliation
	// unsupported lists what the vector asks for that the runner cannot
	// check faithfully; such a vector is skipped with these reasons rather
	// than passed with parts ignored.
	unsupported []string
}

// Source is a vector's origin in Kafka's tests.
type Source struct{ Path, Method string }

// Load reads and parses a vector file.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	return Parse(path, data)
}

// Parse parses a vector file's contents; name is the file name errors and
// outcomes report. The file is decoded as strictly as a scenario: malformed
// input — wrong types, duplicate keys, missing names or kinds, unknown
// kinds, versions and keys at any level, a second YAML document, a vector
// past the limits of partitions, members or steps — is an error naming
// file:line:column, the schema path and, for a typo, the nearest known
// word. A vector that loads but asks for what the runner cannot check
// faithfully (a property in free text, a then step in words) is skipped
// with the reason when run.
func Parse(name string, data []byte) (*File, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("conformance: %s: %w", name, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, fmt.Errorf("conformance: %s: %w", name, err)
	default:
		return nil, fmt.Errorf("conformance: %s:%d:%d: a second YAML document starts here; a vector file holds exactly one (remove the --- line)", name, next.Line, next.Column)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fmt.Errorf("conformance: %s: empty file", name)
	}
	root := node{file: name, path: "(top level)"}.child(doc.Content[0], "(top level)")
	fs, err := root.fields()
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	f := &File{Path: name, Meta: map[string]string{}}
	var vectors *node
	for _, fl := range fs {
		switch fl.key {
		case "meta":
			if err := parseMeta(fl.value, f.Meta); err != nil {
				return nil, fmt.Errorf("conformance: %w", err)
			}
		case "vectors":
			v := fl.value
			vectors = &v
		default:
			return nil, fmt.Errorf("conformance: %w", fl.name.errorf("%s; a vector file has meta and vectors", unknownKey(fl, []string{"meta", "vectors"})))
		}
	}
	if vectors == nil {
		return nil, fmt.Errorf("conformance: %w", root.errorf("no vectors list"))
	}
	items, err := vectors.items()
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	names := map[string]int{}
	for _, it := range items {
		v, err := parseVector(it)
		if err != nil {
			return nil, fmt.Errorf("conformance: %w", err)
		}
		if line, dup := names[v.Name]; dup {
			return nil, fmt.Errorf("conformance: %w", it.errorf("vector name %q already used at line %d", v.Name, line))
		}
		names[v.Name] = v.Line
		f.Vectors = append(f.Vectors, v)
	}
	return f, nil
}

// parseMeta keeps the meta section's scalar values; meta is informational,
// so anything else in it is ignored rather than rejected.
func parseMeta(n node, meta map[string]string) error {
	fs, err := n.fields()
	if err != nil {
		return err
	}
	for _, f := range fs {
		if s, err := f.value.str(); err == nil {
			meta[f.key] = s
		}
	}
	return nil
}

var vectorKeys = []string{"name", "source", "version", "kind", "assignor", "notes", "input", "expected", "then"}

func parseVector(n node) (Vector, error) {
	fs, err := n.fields()
	if err != nil {
		return Vector{}, err
	}
	v := Vector{Line: n.line(), pos: n.at(), Version: "4.0"}
	byKey := map[string]node{}
	for _, f := range fs {
		byKey[f.key] = f.value
		switch f.key {
		case "name":
			v.Name, err = f.value.str()
		case "kind":
			v.Kind, err = f.value.str()
		case "version":
			v.Version, err = f.value.str()
		case "notes":
			v.Notes, err = f.value.str()
		case "source":
			v.Source, err = parseSource(f.value)
		case "assignor":
			if f.value.n.Kind == yaml.SequenceNode {
				v.Assignors, err = f.value.strings()
			} else {
				var a string
				a, err = f.value.str()
				v.Assignors = []string{a}
			}
		case "input", "expected", "then":
			// Read below, once the kind is known.
		default:
			err = f.name.errorf("%s", unknownKey(f, vectorKeys))
		}
		if err != nil {
			return Vector{}, err
		}
	}
	if v.Name == "" {
		return Vector{}, n.errorf("vector without a name")
	}
	n.path = "vector " + v.Name
	if v.Kind == "" {
		return Vector{}, n.errorf("no kind (client_assignor, server_assignor or reconciliation)")
	}
	if v.Version != "4.0" && v.Version != "trunk" {
		return Vector{}, byKey["version"].errorf("version %q is neither 4.0 nor trunk", v.Version)
	}
	switch v.Kind {
	case "client_assignor", "server_assignor":
		if len(v.Assignors) == 0 {
			return Vector{}, n.errorf("an assignor vector needs an assignor")
		}
		in, ok := byKey["input"]
		if !ok {
			return Vector{}, n.errorf("an assignor vector needs an input")
		}
		if v.group, err = parseGroupInput(in, &v); err != nil {
			return Vector{}, err
		}
		want, ok := byKey["expected"]
		if !ok {
			return Vector{}, n.errorf("an assignor vector needs an expected block")
		}
		if v.want, err = parseExpectation(want, &v); err != nil {
			return Vector{}, err
		}
		if then, ok := byKey["then"]; ok {
			if v.then, err = parseSteps(then, &v); err != nil {
				return Vector{}, err
			}
		}
	case "reconciliation":
		in, ok := byKey["input"]
		if !ok {
			return Vector{}, n.errorf("a reconciliation vector needs an input")
		}
		want, hasWant := byKey["expected"]
		if v.recon, err = parseReconciliation(in, want, hasWant, &v); err != nil {
			return Vector{}, err
		}
		if then, ok := byKey["then"]; ok {
			v.unsupported = append(v.unsupported, then.at()+": then steps are not defined for reconciliation vectors")
		}
	default:
		kinds := []string{"client_assignor", "server_assignor", "reconciliation"}
		msg := fmt.Sprintf("unknown kind %q", v.Kind)
		if s := nearest(v.Kind, kinds); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return Vector{}, byKey["kind"].errorf("%s; the kinds are %s", msg, strings.Join(kinds, ", "))
	}
	return v, nil
}

func parseSource(n node) (Source, error) {
	fs, err := n.fields()
	if err != nil {
		return Source{}, err
	}
	var s Source
	for _, f := range fs {
		switch f.key {
		case "path":
			s.Path, err = f.value.str()
		case "method":
			s.Method, err = f.value.str()
		}
		if err != nil {
			return Source{}, err
		}
	}
	return s, nil
}
