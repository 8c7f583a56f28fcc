package report

import (
	"bytes"
	"testing"
)

// TestSummarisedResultReadsBack: a summarised result.json has no
// timelines but a summary per run, and reads back as a rebalsim result
// (rebalsim report renders it, without the lane charts). The lab report
// has fewer segments than maxFullSegments, so auto keeps it whole.
func TestSummarisedResultReadsBack(t *testing.T) {
	r := labReport()
	if got, err := forSaving(r, TimelineAuto); err != nil || got != r {
		t.Fatalf("auto on a small report: %v, same report %v; want it whole", err, got == r)
	}
	saved, err := forSaving(r, TimelineSummarised)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Runs[0].Timeline) == 0 {
		t.Fatal("the summary emptied the caller's report")
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, saved); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&b)
	if err != nil {
		t.Fatalf("reading a summarised result: %v", err)
	}
	if len(back.TimelineSummary) != len(r.Runs) || len(back.Runs[0].Timeline) != 0 {
		t.Fatalf("%d summaries, %d segments: want one per run, none", len(back.TimelineSummary), len(back.Runs[0].Timeline))
	}
	// The summary's seconds are the timeline's: every partition is in
	// some state over the whole run, so they add up to partitions × horizon
	// for the segments recorded.
	total, want := 0.0, 0.0
	for _, st := range back.TimelineSummary[0].PartitionSeconds {
		total += st.Seconds
	}
	for _, s := range r.Runs[0].Timeline {
		want += s.End - s.Start
	}
	if d := total - want; d > 1e-9 || d < -1e-9 {
		t.Errorf("summary holds %v partition-seconds, the timeline %v", total, want)
	}
	if _, err := forSaving(r, "everything"); err == nil {
		t.Error("an unknown timeline mode was accepted")
	}
}
