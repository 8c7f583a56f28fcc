package scenarios

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// TestYAMLSyntaxErrorPositions: a YAML syntax error names the line and
// column where yaml.v3's parser saw the problem, counted in characters,
// and what it expected there; for a construct left open, also where the
// construct began. Each position is worked out by hand below: the problem
// is the first character the parser could not take (a token, the end of
// the file after the last newline, at column 1 of the line after it).
func TestYAMLSyntaxErrorPositions(t *testing.T) {
	checkRejections(t, []rejection{
		// The second ": " on line 1, at column 5.
		{"second mapping value", "a: b: c\n", "t.yaml:1:5", []string{"mapping values are not allowed in this context"}},
		// An indented key under a scalar: its colon, line 2 column 4.
		{"indented key under a scalar", "a: 1\n  b: 2\n", "t.yaml:2:4", []string{"mapping values are not allowed"}},
		// A key without a colon folds into a plain scalar with the next
		// line, whose colon (column 2) is then one value too many.
		{"key without a colon", "key with no colon\nb: 1\n", "t.yaml:2:2", []string{"mapping values are not allowed"}},
		// The flow sequence opened at line 1 column 7 meets the end of the
		// file, at line 2 column 1.
		{"flow sequence never closed", "name: [x\n", "t.yaml:2:1", []string{"did not find expected ',' or ']'", "flow sequence that starts at line 1, column 7"}},
		{"flow mapping never closed", "name: {a: 1\n", "t.yaml:2:1", []string{"did not find expected ',' or '}'", "flow mapping that starts at line 1, column 7"}},
		// Inside the open mapping "duration" folds into a key with the
		// line before; the parser stops at the value indicator after it
		// ("duration" is columns 1-8, the colon 9).
		{"flow mapping runs into the next key", "name: {a: 1\nduration: 2m\n", "t.yaml:2:9", []string{"did not find expected ',' or '}'", "line 1, column 7"}},
		{"flow sequence runs into the next key", "topics: [a, b\nmembers: []\n", "t.yaml:2:8", []string{"did not find expected ',' or ']'", "line 1, column 9"}},
		// A '}' where the inner sequence (opened at column 8) needs ']'.
		{"wrong closing bracket", "a: {b: [1, 2}\n", "t.yaml:1:13", []string{"did not find expected ',' or ']'", "flow sequence that starts at line 1, column 8"}},
		// The second ']' closes nothing: the parser wanted a new document.
		{"one bracket too many", "[a, b]]\n", "t.yaml:1:7", []string{"did not find expected <document start>"}},
		{"one brace too many", "{a: 1}}\n", "t.yaml:1:7", []string{"did not find expected <document start>"}},
		// The quote opened at column 4 is still open at the end of the file.
		{"single quote never closed", "a: 'unterminated\n", "t.yaml:2:1", []string{"found unexpected end of stream", "quoted scalar that starts at line 1, column 4"}},
		{"double quote never closed", "a: b\n\"c\n", "t.yaml:3:1", []string{"found unexpected end of stream", "quoted scalar that starts at line 2, column 1"}},
		// The backslash of \q, column 9 ("a: \"bad " is 8 characters).
		{"unknown escape", "a: \"bad \\q escape\"\n", "t.yaml:1:9", []string{"found unknown escape character", "line 1, column 4"}},
		// \u needs four hex digits: the parser skips "\u" (columns 5-6) and
		// stops at the first of them, column 7, finding only two.
		{"short unicode escape", "a: \"\\u12\"\n", "t.yaml:1:7", []string{"did not find expected hexdecimal number"}},
		// After a quoted value the only thing allowed on the line is a
		// comment: the parser stops at the "y", column 8.
		{"text after a double-quoted value", "a: \"x\" y\n", "t.yaml:1:8", []string{"did not find expected key", "block mapping that starts at line 1, column 1"}},
		{"text after a single-quoted value", "a: 'x' y\n", "t.yaml:1:8", []string{"did not find expected key"}},
		// A list item indented less than its siblings: the "-" at line 3
		// column 2 is neither in the list nor a key of the mapping.
		{"list item dedented", "a:\n  - x\n - y\n", "t.yaml:3:2", []string{"did not find expected key", "block mapping that starts at line 1, column 1"}},
		{"key dedented", "a:\n  b: 1\n c: 2\n", "t.yaml:3:2", []string{"did not find expected key"}},
		// A literal block ends at the less indented line, whose "y" at
		// column 2 cannot be a key.
		{"block scalar dedented", "a: |\n  x\n y\n", "t.yaml:3:2", []string{"did not find expected key"}},
		// A mapping key in a top-level list: "b" at line 2 column 1.
		{"mapping key in a list", "- a\nb: c\n", "t.yaml:2:1", []string{"did not find expected '-' indicator", "block collection that starts at line 1, column 1"}},
		// '@' and '`' are reserved: the character itself.
		{"reserved @", "@foo: 1\n", "t.yaml:1:1", []string{"found character that cannot start any token"}},
		{"reserved backquote", "a: `x`\n", "t.yaml:1:4", []string{"found character that cannot start any token"}},
		// A tab indents line 2: the tab at column 1.
		{"tab indentation", "a:\n\tb: 1\n", "t.yaml:2:1", []string{"cannot start any token", "YAML does not allow tabs for indentation"}},
		// An alias without a name: the character after '*', column 5.
		{"empty alias", "a: *\n", "t.yaml:1:5", []string{"did not find expected alphabetic or numeric character", "alias that starts at line 1, column 4"}},
		{"empty anchor", "a: &\n", "t.yaml:1:5", []string{"anchor that starts at line 1, column 4"}},
		// The alias *y at line 2 column 4 names no anchor.
		{"unknown alias", "a: &x\nb: *y\n", "t.yaml:2:4", []string{"unknown anchor 'y' referenced", "must follow its anchor"}},
		// A tag opened with "!<" at column 4 and never closed: the parser
		// stops at the blank after "tag", column 9.
		{"verbatim tag not closed", "a: !<tag 1\n", "t.yaml:1:9", []string{"did not find the expected '>'", "tag that starts at line 1, column 4"}},
		// The second %YAML directive, line 2.
		{"duplicate directive", "%YAML 1.1\n%YAML 1.1\n---\na: 1\n", "t.yaml:2:1", []string{"found duplicate %YAML directive"}},
		// A value is missing after the trailing comma: the end of the file.
		{"trailing comma at the end", "a: [1, 2,\n", "t.yaml:2:1", []string{"did not find expected node content"}},
		// A stray indicator where a value must start.
		{"stray comma", ",\n", "t.yaml:1:1", []string{"did not find expected node content"}},
		{"stray bracket", "]\n", "t.yaml:1:1", []string{"did not find expected node content"}},
		// The second document's open sequence runs to the end of the file,
		// line 4; the error is in that document, not the first.
		{"error in a second document", "x: 1\n---\ny: [\n", "t.yaml:4:1", []string{"did not find expected node content"}},
		// Columns count characters, not bytes: "é: [" is four characters,
		// the sequence opens at column 4.
		{"columns in characters", "é: [ü\n", "t.yaml:2:1", []string{"flow sequence that starts at line 1, column 4"}},
		{"columns in characters on the problem's line", "ü: {é: [1, 2}\n", "t.yaml:1:13", []string{"flow sequence that starts at line 1, column 8"}},
		// A CRLF file counts lines as a LF file does.
		{"CRLF line ends", "a: 1\r\nb: c: d\r\n", "t.yaml:2:5", []string{"mapping values are not allowed"}},
		// A problem after a comment line and blank lines.
		{"after comments and blank lines", "# a comment\n\n\nname: x\n  y: 1\n", "t.yaml:5:4", []string{"mapping values are not allowed"}},
	})
}

// yamlLines splits a file into lines as YAML counts them: after the byte
// order mark, decoded from UTF-16 when the mark says so, broken at LF,
// CRLF, CR, NEL, LS and PS (yaml.v3's is_break).
func yamlLines(data []byte) [][]rune {
	var text []rune
	switch {
	case bytes.HasPrefix(data, []byte("\xff\xfe")), bytes.HasPrefix(data, []byte("\xfe\xff")):
		little := data[0] == 0xff
		var units []uint16
		for i := 2; i+1 < len(data); i += 2 {
			if little {
				units = append(units, uint16(data[i])|uint16(data[i+1])<<8)
			} else {
				units = append(units, uint16(data[i])<<8|uint16(data[i+1]))
			}
		}
		text = utf16.Decode(units)
	default:
		text = []rune(string(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	}
	lines := [][]rune{{}}
	for i := 0; i < len(text); i++ {
		switch r := text[i]; r {
		case '\r', '\n', 0x85, 0x2028, 0x2029:
			if r == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			lines = append(lines, []rune{})
		default:
			lines[len(lines)-1] = append(lines[len(lines)-1], r)
		}
	}
	return lines
}

// FuzzYAMLErrorPositions: whatever the input, Parse does not panic, every
// position an error names is inside the file (a line it has, a column
// from the line's first character to just past its last), and a YAML
// syntax error names one.
//
//	go test -fuzz=FuzzYAMLErrorPositions ./scenarios
func FuzzYAMLErrorPositions(f *testing.F) {
	for _, seed := range []string{
		"a: b: c\n", "name: [x\n", "name: {a: 1\nduration: 2m\n", "a: 'x\n", "a: \"\\q\"\n",
		"a:\n  - x\n - y\n", "@\n", "a: *y\n", "x: 1\n---\ny: [\n", "é: [ü\n", "a: 1\r\nb: c: d\r\n",
		"a: 1\rb: c: d\r", "a: 1\u0085b: c: d", "a: 1\u2028b: [", "\xef\xbb\xbfa: b: c\n",
		"\xff\xfea\x00:\x00 \x00[\x00", "a: \x01\n", "a: \xff\n", "\ta: 1\n", "- [\n",
		base + "defaults:\n\tsession_timeout: 10s\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse("fuzz.yaml", data)
		if err == nil {
			return
		}
		var list []*Error
		var one *Error
		var many ErrorList
		switch {
		case errors.As(err, &many):
			list = many
		case errors.As(err, &one):
			list = []*Error{one}
		default:
			t.Fatalf("Parse returned %T, not *Error or ErrorList: %v", err, err)
		}
		lines := yamlLines(data)
		for _, e := range list {
			if strings.HasPrefix(e.Message, "invalid YAML") && !strings.Contains(e.Message, "UTF-16") &&
				utf8.Valid(data) && e.Line == 0 {
				t.Errorf("a YAML syntax error without a position: %v", e)
			}
			if e.Line == 0 {
				continue
			}
			if e.Line > len(lines) || e.Column < 1 || e.Column > len(lines[e.Line-1])+1 {
				t.Errorf("%v: outside the file, which has %d lines (line %d has %d characters)",
					e, len(lines), e.Line, len(lines[min(e.Line, len(lines))-1]))
			}
		}
	})
}
