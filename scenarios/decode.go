package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// decoder turns YAML nodes into typed values. It checks shapes and types
// (a list where a list belongs, a duration with a unit, known keys) and
// the size limits that protect memory; the meaning of the values is left to
// the checker, which Validate shares. Problems are collected rather than
// returned one by one, so a file with three typos is reported in one go.
type decoder struct {
	source string
	errs   []*Error
	// halted stops all further decoding: too many problems, or a document
	// that expands past maxValues through aliases.
	halted bool
	// visits counts the values decoded, an alias counting again each time it
	// is used, so that a small file cannot make the decoder walk a huge
	// graph (the "billion laughs" attack, or an anchor that contains itself).
	visits int
	// nodes records where each field was written, by the checker's paths
	// ("members[3].session_timeout"), so that semantic problems found later
	// can name a line and column.
	nodes map[string]*yaml.Node
	// memberEntry maps an expanded member's index to the index of the first
	// member of its entry, whose paths are the ones recorded in nodes: the
	// members of {count: 100, id: "c{i}"} all point at that one entry.
	memberEntry []int
	// eventOrder maps an event's index after sorting by time to its index
	// in the file, under which its nodes are recorded.
	eventOrder []int
	// memberCount and actions count what the scenario allocates, against
	// MaxMembers and MaxEventActions.
	memberCount, actions int
}

// parseYAML reads exactly one YAML document and returns its root node.
func parseYAML(source string, data []byte) (root *yaml.Node, err error) {
	// yaml.v3 reports malformed input as errors, but a parser bug must not
	// take the caller down with it: scenario files come from users.
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, &Error{Source: source, Message: fmt.Sprintf("the YAML parser failed on this file: %v", r)}
		}
	}()
	if line, col, over := overNodeBudget(data); over {
		return nil, &Error{Source: source, Line: line, Column: col,
			Message: fmt.Sprintf("the file has more than %s YAML values (keys, values and list items) by here, the limit for a scenario; the largest allowed group (%s members, %s events) needs far fewer: write repeated members with count:",
				grouped(maxNodes), grouped(MaxMembers), grouped(MaxEventActions))}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{Source: source, Message: "the file is empty; a scenario needs at least duration:, topics: and members:"}
		}
		return nil, yamlError(source, data, dec, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, yamlError(source, data, dec, err)
	default:
		return nil, &Error{Source: source, Line: next.Line, Column: next.Column,
			Message: "a second YAML document starts here; a scenario file holds exactly one (remove the --- line)"}
	}
	if len(doc.Content) == 0 || (doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].ShortTag() == "!!null") {
		return nil, &Error{Source: source, Line: doc.Line, Column: doc.Column,
			Message: "the document is empty; a scenario needs at least duration:, topics: and members:"}
	}
	return doc.Content[0], nil
}

// maxNodes bounds the YAML values a file may hold before it is parsed.
// yaml.v3 builds the whole node tree of a document before rebalsim sees
// any of it, at about 400 bytes and a few microseconds per node, so a
// 60 MB file of tiny values used to take minutes and gigabytes before the
// first limit applied. 1.5 million values keep parsing under about 600 MB
// and a few seconds; 100,000 members or events written out one per line
// stay below it.
const maxNodes = 1_500_000

// overNodeBudget counts, in one pass over the bytes and before any
// parsing, an upper bound on the nodes the YAML parser would build: every
// node but the root needs an indicator (a ': ' between a key and its
// value, a '- ' list item, a ',' or an opening bracket in flow style, a
// '? ' key), and none is skipped, not in comments nor in quotes, so that
// no quoting can hide values from the count. It reports the line and
// column where the count passes maxNodes.
func overNodeBudget(data []byte) (line, col int, over bool) {
	if len(data) < maxNodes/2 {
		return 0, 0, false // too short to hold that many
	}
	nodes := 1
	for i, c := range data {
		switch c {
		case ':':
			nodes += 2
		case ',', '[', '{':
			nodes++
		case '-', '?':
			if i+1 == len(data) || data[i+1] == ' ' || data[i+1] == '\n' || data[i+1] == '\t' || data[i+1] == '\r' {
				nodes++
			}
		}
		if nodes > maxNodes {
			line = 1 + bytes.Count(data[:i], []byte{'\n'})
			col = 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:i], '\n')+1:i])
			return line, col, true
		}
	}
	return 0, 0, false
}

// yamlError turns a yaml.v3 syntax error into an *Error at the place the
// parser saw the problem. yaml.v3's message carries at most a line, and
// not always the problem's (it leaves the first line out, prefers the
// line where the enclosing construct began, and counts scanner lines from
// 1 but parser lines from 0), so the position comes from the parser's own
// marks instead (see parserMarks); the message keeps only the problem's
// text. Encoding problems have no mark, and rebalsim finds the bad
// character itself.
func yamlError(source string, data []byte, dec *yaml.Decoder, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if isReaderProblem(msg) {
		e := &Error{Source: source, Message: "invalid YAML: " + msg}
		e.Line, e.Column = badCharacter(data)
		return e
	}
	marks, ok := parserMarks(dec)
	if strings.HasPrefix(msg, "unknown anchor '") {
		// Raised while the alias event is current, without a position.
		e := &Error{Source: source, Message: "invalid YAML: " + msg + "; an alias (*name) must follow its anchor (&name)"}
		if ok {
			e.Line, e.Column = positionAt(data, marks.event)
		}
		return e
	}
	if rest, found := strings.CutPrefix(msg, "line "); found {
		if _, text, found := strings.Cut(rest, ": "); found {
			msg = text
		}
	}
	e := &Error{Source: source, Message: "invalid YAML: " + msg}
	if !ok || !marks.syntax {
		return e
	}
	e.Line, e.Column = positionAt(data, marks.problem)
	if marks.context != "" && marks.contextAt != marks.problem {
		line, col := positionAt(data, marks.contextAt)
		e.Message += fmt.Sprintf(" (%s that starts at line %d, column %d)", marks.context, line, col)
	}
	if indentedWithTab(data, e.Line) {
		e.Message += " (YAML does not allow tabs for indentation; use spaces)"
	}
	return e
}

// yamlMark is a position as yaml.v3 keeps it: the number of characters
// before it in the document (after any byte order mark, CRLF counting
// two).
type yamlMark struct{ index int }

// positionAt turns a mark into a 1-based line and column, the column
// counted in characters, breaking lines where YAML does (LF, CRLF, CR,
// NEL, LS, PS: yaml.v3's is_break), so that it agrees with the positions
// of nodes. It counts from the mark's index rather than taking yaml.v3's
// line and column, which at the end of a file without a final newline
// point at a line after the last. A mark past the end is placed at the
// end.
func positionAt(data []byte, m yamlMark) (line, col int) {
	text := documentText(data)
	line, col = 1, 1
	for i := 0; i < len(text) && i < m.index; i++ {
		switch r := text[i]; r {
		case '\r', '\n', 0x85, 0x2028, 0x2029:
			if r == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			line, col = line+1, 1
		default:
			col++
		}
	}
	return line, col
}

// documentText is the characters of a YAML file as yaml.v3's reader
// decodes them: UTF-16 after its byte order mark, otherwise UTF-8 after
// any byte order mark (a file with invalid UTF-8 fails before any mark is
// made).
func documentText(data []byte) []rune {
	if len(data) >= 2 && (data[0] == 0xff && data[1] == 0xfe || data[0] == 0xfe && data[1] == 0xff) {
		little := data[0] == 0xff
		units := make([]uint16, 0, len(data)/2)
		for i := 2; i+1 < len(data); i += 2 {
			if little {
				units = append(units, uint16(data[i])|uint16(data[i+1])<<8)
			} else {
				units = append(units, uint16(data[i])<<8|uint16(data[i+1]))
			}
		}
		return utf16.Decode(units)
	}
	return []rune(string(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
}

// yamlMarks are the positions yaml.v3's parser recorded for its last
// error.
type yamlMarks struct {
	// syntax is set for a scanner or parser error, the ones with marks.
	syntax bool
	// problem is where the problem is; context, when not "", names the
	// construct being read ("while parsing a flow mapping"), which began
	// at contextAt.
	problem, contextAt yamlMark
	context            string
	// event is the start of the event being composed (for an alias that
	// names no anchor, the alias).
	event yamlMark
}

// yaml.v3's yaml_error_type_t values for the errors that carry marks
// (yamlh.go: yaml_SCANNER_ERROR, yaml_PARSER_ERROR).
const (
	yamlScannerError = 3
	yamlParserError  = 4
)

// parserMarks reads the marks of dec's failed parse. yaml.v3 computes the
// exact position of every syntax error (yaml_parser_t's problem_mark and
// context_mark, a port of libyaml's) but drops all but a line from its
// message and exports neither, so they are read by reflection from the
// decoder's parser, which outlives the failed Decode. gopkg.in/yaml.v3
// is pinned in go.mod and no longer changes; should a later version move
// these fields, ok is false and the error goes without a position, which
// TestYAMLSyntaxErrorPositions then reports.
func parserMarks(dec *yaml.Decoder) (m yamlMarks, ok bool) {
	defer func() {
		if recover() != nil {
			m, ok = yamlMarks{}, false
		}
	}()
	p := reflect.ValueOf(dec).Elem().FieldByName("parser")
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return m, false
	}
	parser := p.Elem().FieldByName("parser")
	mark := func(v reflect.Value) yamlMark { return yamlMark{index: int(v.FieldByName("index").Int())} }
	kind := parser.FieldByName("error").Int()
	m.syntax = kind == yamlScannerError || kind == yamlParserError
	m.problem = mark(parser.FieldByName("problem_mark"))
	m.context = parser.FieldByName("context").String()
	m.contextAt = mark(parser.FieldByName("context_mark"))
	m.event = mark(p.Elem().FieldByName("event").FieldByName("start_mark"))
	return m, true
}

// indentedWithTab reports whether the given line of data starts with
// whitespace that holds a tab, the commonest cause of a baffling YAML error.
func indentedWithTab(data []byte, line int) bool {
	for i := 1; i < line; i++ {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return false
		}
		data = data[nl+1:]
	}
	for _, c := range data {
		switch c {
		case '\t':
			return true
		case ' ':
			continue
		}
		return false
	}
	return false
}

// isReaderProblem reports whether msg is an encoding problem from yaml.v3's
// reader (readerc.go).
func isReaderProblem(msg string) bool {
	return strings.HasPrefix(msg, "input error") || strings.Contains(msg, "UTF-8") ||
		strings.Contains(msg, "UTF-16") || strings.Contains(msg, "surrogate") ||
		msg == "control characters are not allowed" || msg == "invalid Unicode character"
}

// badCharacter finds the first byte sequence YAML does not allow (invalid
// UTF-8, or a character outside YAML's printable set) and returns its line
// and column as positionAt counts them; 0, 0 if there is none, or if the
// file is UTF-16, whose problems yaml.v3 reports by byte offset only.
func badCharacter(data []byte) (line, col int) {
	if len(data) >= 2 && (data[0] == 0xff && data[1] == 0xfe || data[0] == 0xfe && data[1] == 0xff) {
		return 0, 0
	}
	body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	chars := 0
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		allowed := r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0x7E) || r == 0x85 ||
			(r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
		if r == utf8.RuneError && size <= 1 || !allowed {
			// The characters before it are valid, so positionAt counts
			// them as the reader would.
			return positionAt(body[:i], yamlMark{index: chars})
		}
		chars++
		i += size
	}
	return 0, 0
}

// failf records a problem at n.
func (d *decoder) failf(n *yaml.Node, format string, args ...any) {
	if d.halted {
		return
	}
	e := &Error{Source: d.source, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
	if len(d.errs) >= maxErrors {
		d.halted = true
	}
}

// maxValues bounds the values one document may expand to. The largest
// legitimate files (100,000 events written out) stay well below it.
const maxValues = 4_000_000

// value follows aliases to the node they name and counts the visit. It
// returns nil once decoding has halted.
func (d *decoder) value(n *yaml.Node) *yaml.Node {
	if d.halted || n == nil {
		return nil
	}
	alias := n
	for hops := 0; n.Kind == yaml.AliasNode; hops++ {
		if n.Alias == nil || hops > 100 {
			d.failf(alias, "alias *%s does not lead to a value", short(alias.Value))
			return nil
		}
		n = n.Alias
	}
	d.visits++
	if d.visits > maxValues {
		d.failf(alias, "the document expands to more than %s values through its aliases; write it out, or use fewer aliases", grouped(maxValues))
		d.halted = true
		return nil
	}
	return n
}

// mark records where the field at path was written.
func (d *decoder) mark(path string, n *yaml.Node) {
	for hops := 0; n != nil && n.Kind == yaml.AliasNode && hops < 100; hops++ {
		n = n.Alias
	}
	if n != nil {
		d.nodes[path] = n
	}
}

// locate implements locator: the position of the field at path, or of
// the nearest enclosing field the file wrote. List items are not recorded
// one by one (an alias can make a list of a thousand appear a thousand
// times); "x[3]" is found as the fourth item of the list recorded as "x".
func (d *decoder) locate(path string) (line, col int, ok bool) {
	for p := d.canonical(path); ; p = parentPath(p) {
		if n := d.node(p); n != nil {
			return n.Line, n.Column, true
		}
		if p == "" {
			return 0, 0, false
		}
	}
}

// node returns the node recorded for path, or the item of a recorded list.
func (d *decoder) node(path string) *yaml.Node {
	if n, ok := d.nodes[path]; ok {
		return n
	}
	if !strings.HasSuffix(path, "]") {
		return nil
	}
	open := strings.LastIndexByte(path, '[')
	i, err := strconv.Atoi(path[open+1 : len(path)-1])
	list, ok := d.nodes[path[:open]]
	if open < 0 || err != nil || !ok || list.Kind != yaml.SequenceNode || i < 0 || i >= len(list.Content) {
		return nil
	}
	item := list.Content[i]
	for hops := 0; item.Kind == yaml.AliasNode && item.Alias != nil && hops < 100; hops++ {
		item = item.Alias
	}
	return item
}

// written implements locator.
func (d *decoder) written(path string) bool { return d.node(d.canonical(path)) != nil }

// canonical rewrites a checker path to the one its nodes were recorded
// under: an expanded member to the first member of its entry, a sorted
// event to its place in the file.
func (d *decoder) canonical(path string) string {
	for _, section := range []struct {
		prefix string
		index  []int
	}{{"members[", d.memberEntry}, {"events[", d.eventOrder}} {
		rest, ok := strings.CutPrefix(path, section.prefix)
		if !ok {
			continue
		}
		num, tail, ok := strings.Cut(rest, "]")
		if i, err := strconv.Atoi(num); ok && err == nil && i >= 0 && i < len(section.index) {
			return section.prefix + strconv.Itoa(section.index[i]) + "]" + tail
		}
	}
	return path
}

// parentPath drops the last step of a path: "events[2].members[0]" →
// "events[2].members" → "events[2]" → "events" → "".
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// entry is one key and its value in a mapping.
type entry struct {
	key     string
	keyNode *yaml.Node
	val     *yaml.Node
}

// fields are a mapping's known entries in file order.
type fields struct {
	entries []*entry
	// misspelt holds the keys that unknown keys were suggested to be, so
	// that "partitons: 12" is not reported a second time as a missing
	// partitions:.
	misspelt []string
}

func (f fields) get(key string) *entry {
	for _, e := range f.entries {
		if e.key == key {
			return e
		}
	}
	return nil
}

// lacks reports whether key is absent and no near miss of it was reported.
func (f fields) lacks(key string) bool {
	return f.get(key) == nil && !slices.Contains(f.misspelt, key)
}

// mapping checks that n is a mapping whose keys are all known and unique,
// and returns its entries. what names the mapping in messages ("defaults",
// "member \"c3\""); stripPrefixes helps suggestions (see nearest).
func (d *decoder) mapping(n *yaml.Node, what string, known []string, stripPrefixes ...string) (fields, bool) {
	n = d.value(n)
	if n == nil {
		return fields{}, false
	}
	if n.Kind != yaml.MappingNode {
		d.failf(n, "%s must be a mapping of keys to values, found %s", what, describe(n))
		return fields{}, false
	}
	var out fields
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := d.value(n.Content[i])
		if k == nil {
			return fields{}, false
		}
		switch {
		case k.Kind != yaml.ScalarNode:
			d.failf(k, "keys in %s must be plain words, found %s", what, describe(k))
			continue
		case k.Value == "<<":
			d.failf(k, "merge keys (<<) are not supported; write the keys out, or put shared consumer settings in defaults:")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.failf(k, "key %q appears twice in %s (first at line %d)", short(k.Value), what, first.Line)
			continue
		}
		seen[k.Value] = k
		if !slices.Contains(known, k.Value) {
			if near := nearest(k.Value, known, stripPrefixes...); near != "" {
				d.failf(k, "unknown key %q in %s; did you mean %q?", short(k.Value), what, near)
				out.misspelt = append(out.misspelt, near)
			} else {
				d.failf(k, "unknown key %q in %s; allowed keys: %s", short(k.Value), what, strings.Join(known, ", "))
			}
			continue
		}
		out.entries = append(out.entries, &entry{key: k.Value, keyNode: k, val: n.Content[i+1]})
	}
	return out, !d.halted
}

// isNull reports whether n is absent or an explicit null (`events:` with
// nothing after it), which optional sections treat as empty.
func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// list checks that n is a list (or null, an empty list) and returns its items.
func (d *decoder) list(n *yaml.Node, key, example string) ([]*yaml.Node, bool) {
	n = d.value(n)
	if n == nil {
		return nil, false
	}
	if isNull(n) {
		return nil, true
	}
	if n.Kind != yaml.SequenceNode {
		d.failf(n, "%s must be a list such as %s, found %s", key, example, describe(n))
		return nil, false
	}
	return n.Content, true
}

// scalar checks that n is a non-null scalar.
func (d *decoder) scalar(n *yaml.Node, key, want string) (*yaml.Node, bool) {
	n = d.value(n)
	if n == nil {
		return nil, false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		d.failf(n, "%s must be %s, found %s", key, want, describe(n))
		return nil, false
	}
	return n, true
}

func (d *decoder) str(n *yaml.Node, key string) (string, bool) {
	s, ok := d.scalar(n, key, "a string")
	if !ok {
		return "", false
	}
	return s.Value, true
}

func (d *decoder) duration(n *yaml.Node, key string) (time.Duration, bool) {
	s, ok := d.scalar(n, key, "a duration such as 45s or 250ms")
	if !ok {
		return 0, false
	}
	tag := s.ShortTag()
	if s.Value == "0" {
		// Zero needs no unit, and "assignment_interval: 0" reads naturally.
		return 0, true
	}
	if tag == "!!int" || tag == "!!float" {
		d.failf(s, "%s is a duration and needs a unit: write %ss, not %s (or %sms for milliseconds)", key, s.Value, s.Value, s.Value)
		return 0, false
	}
	v, err := time.ParseDuration(s.Value)
	if err != nil {
		if _, numErr := strconv.ParseFloat(s.Value, 64); numErr == nil {
			d.failf(s, "%s is a duration and needs a unit: write %ss, not %s", key, s.Value, s.Value)
			return 0, false
		}
		if overflowsDuration(s.Value) {
			d.failf(s, "%s %s is out of range: durations go up to %s (about 292 years)", key, s.Value, FormatDuration(math.MaxInt64))
			return 0, false
		}
		d.failf(s, "%s must be a duration such as 45s, 250ms or 5m, found %s", key, describe(s))
		return 0, false
	}
	return v, true
}

// overflowsDuration reports whether s is written like a duration, numbers
// with units, but is too long for time.Duration (whose ParseDuration says
// only "invalid duration").
func overflowsDuration(s string) bool {
	s = strings.TrimLeft(s, "+-")
	units := []string{"ns", "us", "µs", "μs", "ms", "s", "m", "h"}
	for s != "" {
		n := 0
		for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == '.') {
			n++
		}
		if n == 0 {
			return false
		}
		s = s[n:]
		unit := ""
		for _, u := range units {
			if strings.HasPrefix(s, u) && len(u) > len(unit) {
				unit = u
			}
		}
		if unit == "" {
			return false
		}
		s = s[len(unit):]
	}
	return true
}

// outOfRange reports whether s is a number too large for a float64
// (1e400), which YAML then reads as a string.
func outOfRange(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return errors.Is(err, strconv.ErrRange)
}

func (d *decoder) boolean(n *yaml.Node, key string) (bool, bool) {
	s, ok := d.scalar(n, key, "true or false")
	if !ok {
		return false, false
	}
	var v bool
	if s.ShortTag() != "!!bool" || s.Decode(&v) != nil {
		d.failf(s, "%s must be true or false, found %s", key, describe(s))
		return false, false
	}
	return v, true
}

// integer decodes a whole number within [lo, hi]; out-of-range values are
// reported here because converting them would silently wrap.
func (d *decoder) integer(n *yaml.Node, key string, lo, hi int64) (int64, bool) {
	s, ok := d.scalar(n, key, "a whole number")
	if !ok {
		return 0, false
	}
	var v int64
	if s.ShortTag() != "!!int" || s.Decode(&v) != nil {
		if s.ShortTag() == "!!int" || s.ShortTag() == "!!float" || outOfRange(s.Value) {
			d.failf(s, "%s must be a whole number from %s to %s, found %s, which is out of range", key, grouped(lo), grouped(hi), s.Value)
		} else {
			d.failf(s, "%s must be a whole number, found %s", key, describe(s))
		}
		return 0, false
	}
	if v < lo || v > hi {
		d.failf(s, "%s must be a whole number from %s to %s, found %s", key, grouped(lo), grouped(hi), s.Value)
		return 0, false
	}
	return v, true
}

func (d *decoder) number(n *yaml.Node, key string) (float64, bool) {
	s, ok := d.scalar(n, key, "a number")
	if !ok {
		return 0, false
	}
	var v float64
	tag := s.ShortTag()
	if (tag != "!!int" && tag != "!!float") || s.Decode(&v) != nil {
		if outOfRange(s.Value) {
			d.failf(s, "%s %s is out of range: numbers go up to about 1.8e308", key, s.Value)
			return 0, false
		}
		d.failf(s, "%s must be a number, found %s", key, describe(s))
		return 0, false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		d.failf(s, "%s must be a finite number, found %s", key, s.Value)
		return 0, false
	}
	return v, true
}

// strings decodes a list of strings. A single string is not accepted: lists here are always lists in
// Kafka too (partition.assignment.strategy, a subscription).
func (d *decoder) strings(n *yaml.Node, key, path string) ([]string, bool) {
	items, ok := d.list(n, key, "[a, b]")
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	what := key + " entries"
	for _, it := range items {
		v, ok := d.str(it, what)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// describe says what a node is, for "found ..." in messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.DocumentNode:
		return "a document"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!null":
		return "nothing (null)"
	case "!!int", "!!float":
		return "the number " + short(n.Value)
	case "!!bool":
		return n.Value
	}
	return "the string " + strconv.Quote(short(n.Value))
}

// short cuts long values so that a message stays one readable line.
func short(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

// grouped formats n with thousands separators, as limits are written in messages.
func grouped[T int | int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
