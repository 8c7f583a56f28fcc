package swarm

import (
	"slices"
	"testing"
)

// TestObservationReadsTrace: the observation takes from a trace, written
// to it in pieces as a run writes it, the JoinGroups still awaited at a
// finding whose answers a partition dropped, the members revoking a
// finding's partitions, when each member last heard from the
// coordinator, and the conversions; and nothing else.
func TestObservationReadsTrace(t *testing.T) {
	// A trace in sim's format, cut from seeds 409 and 38 (as they ran
	// before member ids and order became Kafka's): c11's JoinGroup
	// answer is dropped; c8's is answered; c5 is sent an assignment
	// without t2-1 and revokes it at 56.777s; c9 is sent one without
	// t2-1 too but restarts before it revokes anything.
	trace := `{"t":36.1,"ev":"send","from":{"process":"c11","incarnation":1},"to":{"process":"coordinator"},"msg":"JoinGroup","body":{"member_id":"c11-3"}}
{"t":36.2,"ev":"send","from":{"process":"c8","incarnation":1},"to":{"process":"coordinator"},"msg":"JoinGroup","body":{"member_id":"c8-2"}}
{"t":59.7,"ev":"drop","from":{"process":"coordinator"},"to":{"process":"c11","incarnation":1},"msg":"JoinGroupResponse","detail":"network partition"}
{"t":59.8,"ev":"recv","from":{"process":"coordinator"},"to":{"process":"c8","incarnation":1},"msg":"JoinGroupResponse"}
{"t":56.015,"ev":"send","from":{"process":"coordinator"},"to":{"process":"c5","incarnation":1},"msg":"SyncGroupResponse","body":{"error":"NONE","assignment":{"t1":[0],"t2":[3,4]}}}
{"t":56.02,"ev":"recv","from":{"process":"coordinator"},"to":{"process":"c5","incarnation":1},"msg":"SyncGroupResponse"}
{"t":56.016,"ev":"send","from":{"process":"coordinator"},"to":{"process":"c9","incarnation":1},"msg":"SyncGroupResponse","body":{"error":"NONE","assignment":{"t2":[0]}}}
{"t":56.3,"ev":"process_start","member":"c9","detail":"incarnation 3"}
{"t":56.547,"ev":"group_type","detail":" consumer"}
{"t":56.777,"ev":"callback_end","member":"c5","detail":"revoked [t2-1]"}
{"t":56.9,"ev":"callback_end","member":"c9","detail":"revoked [t2-1]"}
{"t":91.5,"ev":"group_type","detail":" consumer"}
{"t":341.0,"ev":"rebalance_end","member":"c11","detail":"JoinGroup timed out"}
`
	o := newObservation()
	// Written in two pieces that split a line, as a writer may be.
	cut := len(trace) / 3
	for _, piece := range []string{trace[:cut], trace[cut:]} {
		if _, err := o.Write([]byte(piece)); err != nil {
			t.Fatal(err)
		}
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	f := Failure{Members: []string{"c11", "c8", "c5", "c9"}, Partitions: []string{"t2-1"}, At: 56.548}
	o.annotate(&f)
	// c11 waits from 36.1s (its answer lost) until the timeout at 341s;
	// c8 got its answer.
	if want := []Since{{Member: "c11", At: 36.1}}; !slices.Equal(f.LostJoins, want) {
		t.Errorf("lost joins %v, want %v", f.LostJoins, want)
	}
	// c5 revokes t2-1 after the finding in the same process; c9's
	// revocation is of a later process.
	if want := []Since{{Member: "c5", At: 56.015}}; !slices.Equal(f.Revoking, want) {
		t.Errorf("revoking %v, want %v", f.Revoking, want)
	}
	// c5 last heard from the coordinator at 56.02s, c9 at its start;
	// c11 and c8 heard nothing before the finding (c8's answer comes
	// after it).
	if want := []Since{{Member: "c5", At: 56.02}, {Member: "c9", At: 56.3}}; !slices.Equal(f.Unheard, want) {
		t.Errorf("unheard %v, want %v", f.Unheard, want)
	}
	// Only the conversion before the finding.
	if want := []Conversion{{At: 56.547, To: "consumer"}}; !slices.Equal(f.Conversions, want) {
		t.Errorf("conversions %v, want %v", f.Conversions, want)
	}
	// After c11's JoinGroup timed out it awaits nothing.
	late := Failure{Members: []string{"c11"}, Partitions: []string{"t2-1"}, At: 341.5}
	o.annotate(&late)
	if late.LostJoins != nil {
		t.Errorf("lost joins after the timeout: %v", late.LostJoins)
	}
	// A line that is not JSON is an error, not a silent skip.
	bad := newObservation()
	if _, err := bad.Write([]byte("{not json\n")); err != nil || bad.err == nil {
		t.Errorf("a malformed trace line was not reported (err %v)", bad.err)
	}
}
