package reconcile

import (
	"errors"
	"reflect"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// vectorCase is one run of CurrentAssignmentBuilder from a `kind:
// reconciliation` vector of conformance/testdata/kafka-vectors.yaml,
// transcribed by hand. A vector with several owned or partition-epoch cases
// becomes several runs. Vectors without a version are 4.0 vectors; where the
// code they exercise is the same on trunk they run on both versions.
type vectorCase struct {
	name     string
	versions []Version
	member   Member
	target   kafka.Assignment
	epoch    int32 // target epoch
	// partitionEpoch is the epoch every partition reports (the vectors only
	// use a default).
	partitionEpoch int32
	owned          kafka.Assignment
	ownedKnown     bool
	want           Member
	unchanged      bool
	wantErr        error
}

var (
	both    = []Version{Kafka40, Trunk}
	only40  = []Version{Kafka40}
	onlyTrk = []Version{Trunk}
)

var vectorCases = []vectorCase{
	{
		name:     "cab_stable_to_stable",
		versions: both,
		member:   Member{State: Stable, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {1, 2, 3}, "t2": {4, 5, 6}}, PendingRevocation: kafka.Assignment{}},
		epoch:    11, target: kafka.Assignment{"t1": {1, 2, 3}, "t2": {4, 5, 6}},
		partitionEpoch: 10,
		want:           Member{State: Stable, Epoch: 11, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {1, 2, 3}, "t2": {4, 5, 6}}},
	},
	{
		name:     "cab_stable_to_unrevoked_partitions",
		versions: both,
		member:   Member{State: Stable, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {1, 2, 3}, "t2": {4, 5, 6}}},
		epoch:    11, target: kafka.Assignment{"t1": {2, 3, 4}, "t2": {5, 6, 7}},
		partitionEpoch: -1,
		want:           Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, PendingRevocation: kafka.Assignment{"t1": {1}, "t2": {4}}},
	},
	{
		name:     "cab_stable_to_unreleased_partitions",
		versions: both,
		member:   Member{State: Stable, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {1, 2, 3}, "t2": {4, 5, 6}}},
		epoch:    11, target: kafka.Assignment{"t1": {1, 2, 3, 4}, "t2": {4, 5, 6, 7}},
		partitionEpoch: 10,
		want:           Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {1, 2, 3}, "t2": {4, 5, 6}}},
	},
	{
		name:     "cab_unrevoked_to_stable_after_ack",
		versions: both,
		member:   Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, PendingRevocation: kafka.Assignment{"t1": {1}, "t2": {4}}},
		epoch:    11, target: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}},
		partitionEpoch: -1,
		owned:          kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, ownedKnown: true,
		want: Member{State: Stable, Epoch: 11, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}},
	},
	{
		name:     "cab_remains_unrevoked_until_all_revoked/owned_null",
		versions: both,
		member:   Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, PendingRevocation: kafka.Assignment{"t1": {1}, "t2": {4}}},
		epoch:    12, target: kafka.Assignment{"t1": {3}, "t2": {6}},
		partitionEpoch: -1,
		unchanged:      true,
	},
	{
		name:     "cab_remains_unrevoked_until_all_revoked/still_owns_t1_1",
		versions: both,
		member:   Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, PendingRevocation: kafka.Assignment{"t1": {1}, "t2": {4}}},
		epoch:    12, target: kafka.Assignment{"t1": {3}, "t2": {6}},
		partitionEpoch: -1,
		owned:          kafka.Assignment{"t1": {1, 2, 3}, "t2": {5, 6}}, ownedKnown: true,
		unchanged: true,
	},
	{
		name:     "cab_remains_unrevoked_until_all_revoked/still_owns_t2_4",
		versions: both,
		member:   Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, PendingRevocation: kafka.Assignment{"t1": {1}, "t2": {4}}},
		epoch:    12, target: kafka.Assignment{"t1": {3}, "t2": {6}},
		partitionEpoch: -1,
		owned:          kafka.Assignment{"t1": {2, 3}, "t2": {4, 5, 6}}, ownedKnown: true,
		unchanged: true,
	},
	{
		// The 4.0 side of cab_unrevoked_to_unrevoked_trunk: 4.0's
		// CurrentAssignmentBuilderTest.testUnrevokedPartitionsToUnrevokedPartitions
		// expects epoch 11 (memberEpoch + 1) and previous epoch 10.
		name:     "cab_unrevoked_to_unrevoked_4.0",
		versions: only40,
		member:   Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, PendingRevocation: kafka.Assignment{"t1": {1}, "t2": {4}}},
		epoch:    12, target: kafka.Assignment{"t1": {3}, "t2": {6}},
		partitionEpoch: -1,
		owned:          kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, ownedKnown: true,
		want: Member{State: UnrevokedPartitions, Epoch: 11, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {3}, "t2": {6}}, PendingRevocation: kafka.Assignment{"t1": {2}, "t2": {5}}},
	},
	{
		name:     "cab_unrevoked_to_unrevoked_trunk",
		versions: onlyTrk,
		member:   Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, PendingRevocation: kafka.Assignment{"t1": {1}, "t2": {4}}},
		epoch:    12, target: kafka.Assignment{"t1": {3}, "t2": {6}},
		partitionEpoch: -1,
		owned:          kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, ownedKnown: true,
		want: Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {3}, "t2": {6}}, PendingRevocation: kafka.Assignment{"t1": {2}, "t2": {5}}},
	},
	{
		name:     "cab_unrevoked_to_unreleased",
		versions: both,
		member:   Member{State: UnrevokedPartitions, Epoch: 11, PreviousEpoch: 10, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, PendingRevocation: kafka.Assignment{}},
		epoch:    11, target: kafka.Assignment{"t1": {2, 3, 4}, "t2": {5, 6, 7}},
		partitionEpoch: 10,
		owned:          kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}, ownedKnown: true,
		want: Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}},
	},
	{
		name:     "cab_unreleased_to_stable",
		versions: both,
		member:   Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}},
		epoch:    12, target: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}},
		partitionEpoch: 10,
		want:           Member{State: Stable, Epoch: 12, PreviousEpoch: 11, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}},
	},
	{
		name:     "cab_unreleased_to_stable_when_partitions_freed",
		versions: both,
		member:   Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}},
		epoch:    11, target: kafka.Assignment{"t1": {2, 3, 4}, "t2": {5, 6, 7}},
		partitionEpoch: -1,
		want:           Member{State: Stable, Epoch: 11, PreviousEpoch: 11, Assigned: kafka.Assignment{"t1": {2, 3, 4}, "t2": {5, 6, 7}}},
	},
	{
		name:     "cab_unreleased_to_unrevoked",
		versions: both,
		member:   Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: kafka.Assignment{"t1": {2, 3}, "t2": {5, 6}}},
		epoch:    12, target: kafka.Assignment{"t1": {3}, "t2": {6}},
		partitionEpoch: 10,
		want:           Member{State: UnrevokedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: kafka.Assignment{"t1": {3}, "t2": {6}}, PendingRevocation: kafka.Assignment{"t1": {2}, "t2": {5}}},
	},
	{
		name:     "cab_unknown_state_fenced_then_rejoins_empty/fenced",
		versions: both,
		member:   Member{State: Unknown, Epoch: 11, PreviousEpoch: 11, Assigned: kafka.Assignment{"t1": {3}, "t2": {6}}, PendingRevocation: kafka.Assignment{"t1": {2}, "t2": {5}}},
		epoch:    12, target: kafka.Assignment{"t1": {3}, "t2": {6}},
		partitionEpoch: 10,
		wantErr:        ErrFencedMemberEpoch,
	},
	{
		name:     "cab_unknown_state_fenced_then_rejoins_empty/rejoins_empty",
		versions: both,
		member:   Member{State: Unknown, Epoch: 11, PreviousEpoch: 11, Assigned: kafka.Assignment{"t1": {3}, "t2": {6}}, PendingRevocation: kafka.Assignment{"t1": {2}, "t2": {5}}},
		epoch:    12, target: kafka.Assignment{"t1": {3}, "t2": {6}},
		partitionEpoch: 11,
		owned:          kafka.Assignment{}, ownedKnown: true,
		want: Member{State: Stable, Epoch: 12, PreviousEpoch: 11, Assigned: kafka.Assignment{"t1": {3}, "t2": {6}}},
	},
	{
		name:     "cab_stable_to_unrevoked_unsubscribed_topic_trunk",
		versions: onlyTrk,
		member:   Member{State: Stable, Epoch: 10, PreviousEpoch: 9, Subscription: []string{"topic2"}, Assigned: kafka.Assignment{"topic1": {1, 2, 3}, "topic2": {4, 5, 6}}},
		epoch:    11, target: kafka.Assignment{"topic1": {1, 2, 3}, "topic2": {4, 5, 6}},
		partitionEpoch: -1,
		owned:          kafka.Assignment{"topic1": {1, 2, 3}, "topic2": {4, 5, 6}}, ownedKnown: true,
		want: Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10, Subscription: []string{"topic2"}, Assigned: kafka.Assignment{"topic2": {4, 5, 6}}, PendingRevocation: kafka.Assignment{"topic1": {1, 2, 3}}},
	},
}

func TestVectors(t *testing.T) {
	for _, tc := range vectorCases {
		for _, version := range tc.versions {
			t.Run(tc.name+"/"+version.String(), func(t *testing.T) {
				in := Input{
					Member:         tc.member,
					TargetEpoch:    tc.epoch,
					Target:         tc.target,
					PartitionEpoch: func(kafka.TopicPartition) int32 { return tc.partitionEpoch },
					Owned:          tc.owned,
					OwnedKnown:     tc.ownedKnown,
					Version:        version,
				}
				got, err := Reconcile(in)
				if tc.wantErr != nil {
					if !errors.Is(err, tc.wantErr) {
						t.Fatalf("got %v, %v; want error %v", got, err, tc.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if tc.unchanged {
					if !reflect.DeepEqual(got, tc.member) {
						t.Fatalf("got %+v, want the member unchanged: %+v", got, tc.member)
					}
					return
				}
				if !sameMember(got, tc.want) {
					t.Fatalf("got  %s\nwant %s", got, tc.want)
				}
			})
		}
	}
}

// sameMember compares members as the vectors do: assignments as sets, an
// absent pending_revocation equal to an empty one.
func sameMember(a, b Member) bool {
	return a.State == b.State && a.Epoch == b.Epoch && a.PreviousEpoch == b.PreviousEpoch &&
		a.Assigned.Equal(b.Assigned) && a.PendingRevocation.Equal(b.PendingRevocation)
}
