package scenarios

import (
	"strings"
	"testing"
)

// BenchmarkParseExamples measures the example library, the typical size
// of a scenario file.
func BenchmarkParseExamples(b *testing.B) {
	var sources [][]byte
	for _, name := range exampleNames() {
		src, err := ExampleSource(name)
		if err != nil {
			b.Fatal(err)
		}
		sources = append(sources, src)
	}
	for b.Loop() {
		for _, src := range sources {
			if _, err := Parse("b.yaml", src); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParseLargeGroup measures a group at the member limit acted on
// by events naming every member. Duplicate checks once made this
// quadratic (minutes, found by FuzzParse's seeds); it must stay linear.
func BenchmarkParseLargeGroup(b *testing.B) {
	src := []byte("duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers: [{count: 100000, id: \"c{i}\"}]\n" +
		"events: [{at: 1s, rolling_restart: {members: all, interval: 1ms}}]\n")
	for b.Loop() {
		if _, err := Parse("b.yaml", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseManyEvents measures a file that writes 10,000 events out.
func BenchmarkParseManyEvents(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(base + "events:\n")
	for range 10_000 {
		sb.WriteString("  - {at: 1m, pause: {member: c2, for: 1s}}\n")
	}
	src := []byte(sb.String())
	for b.Loop() {
		if _, err := Parse("b.yaml", src); err != nil {
			b.Fatal(err)
		}
	}
}
