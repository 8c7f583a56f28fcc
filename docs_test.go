package rebalsim_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// docFiles are the documents a clone must be able to read on their own:
// the README, the other top-level documents and docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.md", "docs/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 3 {
		t.Fatalf("found only %v", files)
	}
	return files
}

var (
	inlineLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`([^`\n]+)`")
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
)

// TestDocLinksStayInTheRepository: every relative link in the documents
// points at a file or directory of the repository (and, into a Markdown
// file, at one of its headings), and so does every relative path written
// as code: a clone has nothing outside the repository.
func TestDocLinksStayInTheRepository(t *testing.T) {
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range proseLines(string(data)) {
			if line == "" {
				continue
			}
			for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
				if msg := checkLink(file, m[1]); msg != "" {
					t.Errorf("%s:%d: link %s: %s", file, n+1, m[1], msg)
				}
			}
			for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
				// A relative path written as code is a link in all but
				// name: it must lead to something in the repository.
				if p := m[1]; strings.Contains(p, "../") {
					if msg := checkLink(file, p); msg != "" {
						t.Errorf("%s:%d: path %s: %s", file, n+1, p, msg)
					}
				}
			}
		}
	}
}

// proseLines returns the file's lines with those of fenced code blocks
// blanked, so that line numbers stay right and code is not read as links.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
		}
	}
	return lines
}

func outside(file, target string) bool {
	rel, err := filepath.Rel(".", filepath.Join(filepath.Dir(file), target))
	return err != nil || rel == ".." || strings.HasPrefix(rel, "../")
}

// checkLink returns what is wrong with a link from file, or "".
func checkLink(file, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	dest := file
	if path != "" {
		if outside(file, path) {
			return "points outside the repository"
		}
		dest = filepath.Join(filepath.Dir(file), path)
		if _, err := os.Stat(dest); err != nil {
			return "no such file in the repository"
		}
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	data, err := os.ReadFile(dest)
	if err != nil {
		return err.Error()
	}
	for _, a := range anchors(string(data)) {
		if a == anchor {
			return ""
		}
	}
	return "no heading of " + dest + " has that anchor"
}

// anchors lists the anchors GitHub gives a Markdown file's headings:
// lower case, punctuation dropped, spaces as hyphens, and -1, -2, ... after
// a repeated one.
func anchors(text string) []string {
	var out []string
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			seen[a]++
			a += "-" + strconv.Itoa(k)
		} else {
			seen[a] = 1
		}
		out = append(out, a)
	}
	return out
}

// TestCheckLinkCatchesBadLinks: the checker above fails on each kind of
// bad link, so that the test passing means something.
func TestCheckLinkCatchesBadLinks(t *testing.T) {
	for _, tc := range []struct{ target, want string }{
		{"../shared/reference/kafka-protocols.md", "points outside the repository"},
		{"docs/nowhere.md", "no such file in the repository"},
		{"README.md#no-such-section", "no heading of README.md has that anchor"},
		{"BENCHMARKS.md#sweeps", ""},
		{"#what-the-model-simplifies", ""},
		{"protocols/classic", ""},
		{"https://kafka.apache.org/", ""},
	} {
		if got := checkLink("README.md", tc.target); got != tc.want {
			t.Errorf("checkLink(README.md, %s) = %q, want %q", tc.target, got, tc.want)
		}
	}
}
