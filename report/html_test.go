package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

func htmlOf(t *testing.T, r *Report) string {
	t.Helper()
	charts, err := Charts(r)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := HTML(&b, r, charts...); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkWellFormed parses the page as XML: the markup is XHTML-style, so a
// strict XML parser catches any unbalanced or misnested tag.
func checkWellFormed(t *testing.T, page string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(page))
	dec.Strict = true
	var stack []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line, _ := dec.InputPos()
			t.Fatalf("report.html is not well-formed at line %d: %v", line, err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			stack = append(stack, el.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements: %v", stack)
	}
}

// checkSelfContained looks for anything that would fetch from elsewhere.
// The only scripts are the interactive timeline's, inline: its data and
// its code, embedded in the binary.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	lower := strings.ToLower(page)
	lower = strings.Replace(lower, `<script type="application/json" id="timeline-data">`, "", 1)
	lower = strings.Replace(lower, "<script>//<![cdata[", "", 1)
	for _, bad := range []string{"http", "<script", "<link", "@import", "url(", "<iframe", "<object", "<embed", "fetch(", "xmlhttprequest", "import("} {
		if i := strings.Index(lower, bad); i >= 0 {
			t.Errorf("report.html contains %q: …%s…", bad, page[max(0, i-60):min(len(page), i+60)])
		}
	}
	for _, part := range strings.Split(page, `src="`)[1:] {
		if !strings.HasPrefix(part, "data:") {
			t.Errorf("an element loads %q", part[:min(len(part), 40)])
		}
	}
}

func TestHTMLIsWellFormedAndSelfContained(t *testing.T) {
	for _, r := range []*Report{labReport(), largeReport(10, 200)} {
		page := htmlOf(t, r)
		checkWellFormed(t, page)
		checkSelfContained(t, page)
		if n := strings.Count(page, "<img "); n != 10 {
			t.Errorf("page embeds %d images, want 10", n)
		}
		if n := strings.Count(page, "<figcaption>"); n != 10 {
			t.Errorf("page has %d captions, want 10", n)
		}
		for _, want := range []string{"What was simulated", "Summary", "Findings", "Charts", "seed", "v0.0.0-test", `class="num best"`} {
			if !strings.Contains(page, want) {
				t.Errorf("page lacks %q", want)
			}
		}
	}
}

func TestHTMLWithoutCharts(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, labReport()); err != nil {
		t.Fatal(err)
	}
	checkWellFormed(t, b.String())
	checkSelfContained(t, b.String())
	if strings.Contains(b.String(), "<img") {
		t.Error("a page without charts embeds images")
	}
}

func TestEscapeHTMLBreaksHTTP(t *testing.T) {
	for _, in := range []string{"see http://x", "HTTPS://y", "a<b>&\"'"} {
		out := escapeHTML(in)
		if strings.Contains(strings.ToLower(out), "http") || strings.ContainsAny(out, "<>\"'") {
			t.Errorf("escapeHTML(%q) = %q", in, out)
		}
	}
	if got := escapeHTML("http"); got != "ht&#116;p" {
		t.Errorf("escapeHTML(http) = %q", got)
	}
}

func TestDataURIBreaksHTTPAndDecodes(t *testing.T) {
	// Bytes whose base64 spells "http" several times, across positions.
	raw, err := base64.StdEncoding.DecodeString("aHTTphttpAAAhttphttpABCD")
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat(raw, 40)
	uri := dataURI("image/png", data)
	if strings.Contains(strings.ToLower(uri), "http") {
		t.Fatal("data URI spells http")
	}
	body := strings.ReplaceAll(strings.TrimPrefix(uri, "data:image/png;base64,"), "\n", "")
	got, err := base64.StdEncoding.DecodeString(body)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("data URI does not decode to its data: %v", err)
	}
}
