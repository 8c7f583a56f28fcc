package reconcile

import (
	"reflect"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// epochs returns a PartitionEpoch function from explicit owners; every other
// partition is free.
func epochs(owner map[kafka.TopicPartition]int32) func(kafka.TopicPartition) int32 {
	return func(tp kafka.TopicPartition) int32 {
		if e, ok := owner[tp]; ok {
			return e
		}
		return -1
	}
}

// TestVersionDifferences pins the behaviours where trunk departs from 4.0,
// derived from the two versions of CurrentAssignmentBuilder rather than
// from a Kafka test.
func TestVersionDifferences(t *testing.T) {
	tp := func(p int32) kafka.TopicPartition { return kafka.TopicPartition{Topic: "t", Partition: p} }
	cases := []struct {
		name string
		in   Input
		want map[Version]Member
	}{
		{
			// The member acknowledged revoking t-2, but the newest target
			// gives t-2 back. Its partition epoch is still the member's own
			// (the coordinator updates epochs after reconciling). 4.0 counts
			// it as unreleased and hands it back a heartbeat later; trunk
			// knows nobody else can hold it and returns it at once.
			name: "pending partition back in target",
			in: Input{
				Member:      Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t": {1}}, PendingRevocation: kafka.Assignment{"t": {2}}},
				TargetEpoch: 12, Target: kafka.Assignment{"t": {1, 2}},
				PartitionEpoch: epochs(map[kafka.TopicPartition]int32{tp(1): 10, tp(2): 10}),
				Owned:          kafka.Assignment{"t": {1}}, OwnedKnown: true,
			},
			want: map[Version]Member{
				Kafka40: {State: UnreleasedPartitions, Epoch: 12, PreviousEpoch: 10, Assigned: kafka.Assignment{"t": {1}}},
				Trunk:   {State: Stable, Epoch: 12, PreviousEpoch: 10, Assigned: kafka.Assignment{"t": {1, 2}}},
			},
		},
		{
			// Already at the target epoch, the member drops topic u from its
			// subscription and still lists u-0. 4.0 waits for a new target;
			// trunk asks for the revocation now, keeping both epochs.
			name: "unsubscribed topic at the target epoch, still owned",
			in: Input{
				Member:      Member{State: Stable, Epoch: 7, PreviousEpoch: 6, Subscription: []string{"t"}, Assigned: kafka.Assignment{"t": {0}, "u": {0}}},
				TargetEpoch: 7, Target: kafka.Assignment{"t": {0}, "u": {0}},
				Owned: kafka.Assignment{"t": {0}, "u": {0}}, OwnedKnown: true,
			},
			want: map[Version]Member{
				Kafka40: {State: Stable, Epoch: 7, PreviousEpoch: 6, Subscription: []string{"t"}, Assigned: kafka.Assignment{"t": {0}, "u": {0}}},
				Trunk:   {State: UnrevokedPartitions, Epoch: 7, PreviousEpoch: 6, Subscription: []string{"t"}, Assigned: kafka.Assignment{"t": {0}}, PendingRevocation: kafka.Assignment{"u": {0}}},
			},
		},
		{
			// Same, but the client already stopped listing u-0: trunk only
			// shrinks Assigned and the member stays stable.
			name: "unsubscribed topic at the target epoch, already released",
			in: Input{
				Member:      Member{State: Stable, Epoch: 7, PreviousEpoch: 6, Subscription: []string{"t"}, Assigned: kafka.Assignment{"t": {0}, "u": {0}}},
				TargetEpoch: 7, Target: kafka.Assignment{"t": {0}, "u": {0}},
				Owned: kafka.Assignment{"t": {0}}, OwnedKnown: true,
			},
			want: map[Version]Member{
				Kafka40: {State: Stable, Epoch: 7, PreviousEpoch: 6, Subscription: []string{"t"}, Assigned: kafka.Assignment{"t": {0}, "u": {0}}},
				Trunk:   {State: Stable, Epoch: 7, PreviousEpoch: 6, Subscription: []string{"t"}, Assigned: kafka.Assignment{"t": {0}}},
			},
		},
		{
			// A member waiting on one revocation drops another topic: trunk
			// adds it to the pending revocation while it waits.
			name: "unsubscribed topic while revoking",
			in: Input{
				Member:      Member{State: UnrevokedPartitions, Epoch: 7, PreviousEpoch: 7, Subscription: []string{"t"}, Assigned: kafka.Assignment{"t": {0}, "u": {0}}, PendingRevocation: kafka.Assignment{"t": {1}}},
				TargetEpoch: 8, Target: kafka.Assignment{"t": {0}, "u": {0}},
				Owned: kafka.Assignment{"t": {0, 1}, "u": {0}}, OwnedKnown: true,
			},
			want: map[Version]Member{
				Kafka40: {State: UnrevokedPartitions, Epoch: 7, PreviousEpoch: 7, Subscription: []string{"t"}, Assigned: kafka.Assignment{"t": {0}, "u": {0}}, PendingRevocation: kafka.Assignment{"t": {1}}},
				Trunk:   {State: UnrevokedPartitions, Epoch: 7, PreviousEpoch: 7, Subscription: []string{"t"}, Assigned: kafka.Assignment{"t": {0}}, PendingRevocation: kafka.Assignment{"t": {1}, "u": {0}}},
			},
		},
	}
	for _, tc := range cases {
		for _, version := range []Version{Kafka40, Trunk} {
			t.Run(tc.name+"/"+version.String(), func(t *testing.T) {
				in := tc.in
				in.Version = version
				got, err := Reconcile(in)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.want[version]
				if !sameMember(got, want) || !reflect.DeepEqual(got.Subscription, want.Subscription) {
					t.Fatalf("got  %v\nwant %v", got, want)
				}
			})
		}
	}
}

// TestUnchangedIsACopy checks that where Kafka returns the same member,
// Reconcile returns an equal value that does not share storage with it.
func TestUnchangedIsACopy(t *testing.T) {
	m := Member{State: UnrevokedPartitions, Epoch: 3, PreviousEpoch: 3,
		Assigned: kafka.Assignment{"t": {0}}, PendingRevocation: kafka.Assignment{"t": {1}}, Subscription: []string{"t"}}
	got, err := Reconcile(Input{Member: m, TargetEpoch: 4, Target: kafka.Assignment{"t": {0}}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("got %v, want the member unchanged", got)
	}
	got.Assigned["t"][0] = 99
	got.PendingRevocation["u"] = []int32{1}
	got.Subscription[0] = "x"
	if m.Assigned["t"][0] != 0 || len(m.PendingRevocation) != 1 || m.Subscription[0] != "t" {
		t.Fatalf("changing the result changed the input: %v", m)
	}
}

// TestUndefinedStatePanics: a state outside MemberState is a bug in the
// caller, not bad input.
func TestUndefinedStatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for an undefined state")
		}
	}()
	_, _ = Reconcile(Input{Member: Member{State: 42}})
}

// TestEmptyMemberMovesToTheTargetEpoch checks the shortcut for a member
// that holds nothing and is targeted nothing against the general path,
// which a target naming a topic with no partitions takes: both give Stable
// at the target epoch with empty assignments, from every state that
// recomputes.
func TestEmptyMemberMovesToTheTargetEpoch(t *testing.T) {
	members := []Member{
		{State: Stable, Epoch: 3, PreviousEpoch: 2, Assigned: kafka.Assignment{}, PendingRevocation: kafka.Assignment{}},
		{State: Stable, Epoch: 3, PreviousEpoch: 2},
		{State: UnreleasedPartitions, Epoch: 3, PreviousEpoch: 3, Assigned: kafka.Assignment{}, PendingRevocation: kafka.Assignment{}},
		{State: UnrevokedPartitions, Epoch: 3, PreviousEpoch: 2, Assigned: kafka.Assignment{}, PendingRevocation: kafka.Assignment{"t": {1}}},
		{State: Stable, Epoch: 3, PreviousEpoch: 2, Subscription: []string{"t"}},
	}
	for _, v := range []Version{Kafka40, Trunk} {
		for i, m := range members {
			in := Input{Member: m, TargetEpoch: 5, Target: kafka.Assignment{}, Version: v, OwnedKnown: true}
			got, err := Reconcile(in)
			if err != nil {
				t.Fatal(err)
			}
			in.Target = kafka.Assignment{"t": {}}
			general, err := Reconcile(in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, general) {
				t.Errorf("%s member %d: shortcut gives %+v, general path %+v", v, i, got, general)
			}
			if got.State != Stable || got.Epoch != 5 || got.Assigned == nil || got.PendingRevocation == nil || got.Assigned.Size()+got.PendingRevocation.Size() != 0 {
				t.Errorf("%s member %d: got %+v, want Stable at epoch 5 holding nothing", v, i, got)
			}
		}
	}
}
