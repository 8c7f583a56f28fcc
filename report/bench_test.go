package report

import (
	"io"
	"testing"
)

// BenchmarkReport1000x10000 writes the whole report (result.json,
// timeline.csv, ten charts as PNG and SVG, report.html) for a group of
// 1,000 members consuming 10,000 partitions under three protocols: the
// size at which a report must still take seconds, not minutes.
//
//	go test ./report -run '^$' -bench Report1000x10000 -benchtime 1x
func BenchmarkReport1000x10000(b *testing.B) {
	r := largeReport(1000, 10000)
	segments := 0
	for _, run := range r.Runs {
		segments += len(run.Timeline)
	}
	b.ReportMetric(float64(segments), "segments")
	dir := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		if _, err := WriteAll(dir, r, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTable1000x10000 is the terminal summary alone, what `compare`
// prints before any file is written.
func BenchmarkTable1000x10000(b *testing.B) {
	r := largeReport(1000, 10000)
	b.ResetTimer()
	for b.Loop() {
		if err := Table(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
