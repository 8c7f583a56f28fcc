package reconcile

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// randomInput draws one heartbeat over two or three topics of six
// partitions: a member in a random state holding a random assignment with
// some of it pending revocation, a random target at an epoch no older than
// the member's, random owners elsewhere, and a random owned report (absent a
// quarter of the time).
func randomInput(r *rand.Rand) Input {
	topics := []string{"a", "b", "c"}[:2+r.IntN(2)]
	randomAssignment := func(prob int) kafka.Assignment {
		a := kafka.Assignment{}
		for _, t := range topics {
			for p := int32(0); p < 6; p++ {
				if r.IntN(100) < prob {
					a[t] = append(a[t], p)
				}
			}
		}
		return a
	}
	held := randomAssignment(40)
	pending := kafka.Assignment{}
	assigned := kafka.Assignment{}
	for _, tp := range held.Partitions() {
		if r.IntN(4) == 0 {
			pending[tp.Topic] = append(pending[tp.Topic], tp.Partition)
		} else {
			assigned[tp.Topic] = append(assigned[tp.Topic], tp.Partition)
		}
	}
	states := []State{Stable, UnrevokedPartitions, UnreleasedPartitions, Unknown}
	epoch := int32(1 + r.IntN(20))
	m := Member{
		State:             states[r.IntN(len(states))],
		Epoch:             epoch,
		PreviousEpoch:     epoch - int32(r.IntN(2)),
		Assigned:          assigned,
		PendingRevocation: pending,
	}
	if r.IntN(3) == 0 {
		// A subscription that may leave out some of the held topics.
		for _, t := range topics {
			if r.IntN(3) > 0 {
				m.Subscription = append(m.Subscription, t)
			}
		}
		if m.Subscription == nil {
			m.Subscription = []string{}
		}
	}
	// Partitions the member holds carry its own epoch; others are owned by
	// someone else at a random epoch, or free.
	others := map[kafka.TopicPartition]int32{}
	for _, t := range topics {
		for p := int32(0); p < 6; p++ {
			tp := kafka.TopicPartition{Topic: t, Partition: p}
			switch {
			case held.Contains(tp):
				others[tp] = m.Epoch
			case r.IntN(2) == 0:
				others[tp] = int32(r.IntN(int(m.Epoch) + 1))
			default:
				others[tp] = -1
			}
		}
	}
	in := Input{
		Member:         m,
		TargetEpoch:    m.Epoch + int32(r.IntN(3)),
		Target:         randomAssignment(40),
		PartitionEpoch: func(tp kafka.TopicPartition) int32 { return others[tp] },
		Version:        Version(r.IntN(2)),
	}
	if r.IntN(4) > 0 {
		in.OwnedKnown = true
		in.Owned = randomAssignment(30).Intersect(held)
		if r.IntN(3) == 0 {
			in.Owned = kafka.Assignment{}
		}
	}
	return in
}

// cloneInput deep-copies the parts of an Input that Reconcile could mutate.
func cloneInput(in Input) Input {
	c := in
	c.Member = Member{
		State: in.Member.State, Epoch: in.Member.Epoch, PreviousEpoch: in.Member.PreviousEpoch,
		Assigned:          cloneAssignment(in.Member.Assigned),
		PendingRevocation: cloneAssignment(in.Member.PendingRevocation),
		Subscription:      slices.Clone(in.Member.Subscription),
	}
	c.Target = cloneAssignment(in.Target)
	c.Owned = cloneAssignment(in.Owned)
	return c
}

func TestReconcileProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(848, 4))
	for run := range 20000 {
		in := randomInput(r)
		before := cloneInput(in)
		next, err := Reconcile(in)
		name := fmt.Sprintf("run %d (%v, %v, target %d %v, owned %v known=%v)",
			run, in.Version, in.Member, in.TargetEpoch, in.Target, in.Owned, in.OwnedKnown)

		if !reflect.DeepEqual(before.Member, in.Member) || !reflect.DeepEqual(before.Target, in.Target) || !reflect.DeepEqual(before.Owned, in.Owned) {
			t.Fatalf("%s: Reconcile modified its input", name)
		}
		if errors.Is(err, ErrFencedMemberEpoch) {
			if in.Member.State != Unknown {
				t.Fatalf("%s: fenced outside state Unknown", name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}

		// The epoch never goes back.
		if next.Epoch < in.Member.Epoch {
			t.Fatalf("%s: epoch went from %d to %d", name, in.Member.Epoch, next.Epoch)
		}

		held := in.Member.Assigned.Union(in.Member.PendingRevocation)
		// A partition joins Assigned only if it is free or already held:
		// the key rule.
		for _, tp := range next.Assigned.Partitions() {
			if !held.Contains(tp) && in.PartitionEpoch(tp) != -1 {
				t.Fatalf("%s: %v given while owned at epoch %d\n  -> %v", name, tp, in.PartitionEpoch(tp), next)
			}
		}
		// Nothing appears from outside current ∪ target.
		allowed := held.Union(in.Target)
		for _, tp := range next.Assigned.Union(next.PendingRevocation).Partitions() {
			if !allowed.Contains(tp) {
				t.Fatalf("%s: %v is neither held nor targeted\n  -> %v", name, tp, next)
			}
		}
		// Assigned and PendingRevocation never overlap.
		if both := next.Assigned.Intersect(next.PendingRevocation); both.Size() > 0 {
			t.Fatalf("%s: %v both assigned and pending revocation\n  -> %v", name, both, next)
		}
		// The result shares no storage with the input.
		if aliases(next, in) {
			t.Fatalf("%s: result aliases the input", name)
		}
	}
}

// aliases reports whether the result shares a map or a slice with the input.
func aliases(next Member, in Input) bool {
	sameMap := func(a, b kafka.Assignment) bool {
		return a != nil && b != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	sharesSlice := func(a kafka.Assignment, bs ...kafka.Assignment) bool {
		for _, ps := range a {
			if cap(ps) == 0 {
				continue
			}
			for _, b := range bs {
				for _, qs := range b {
					if cap(qs) > 0 && &ps[:cap(ps)][0] == &qs[:cap(qs)][0] {
						return true
					}
				}
			}
		}
		return false
	}
	inputs := []kafka.Assignment{in.Member.Assigned, in.Member.PendingRevocation, in.Target, in.Owned}
	for _, out := range []kafka.Assignment{next.Assigned, next.PendingRevocation} {
		for _, b := range inputs {
			if sameMap(out, b) {
				return true
			}
		}
		if sharesSlice(out, inputs...) {
			return true
		}
	}
	return len(next.Subscription) > 0 && &next.Subscription[0] == &in.Member.Subscription[0]
}

// TestUnrevokedWaitsForEveryPartition walks one revocation through the
// builder heartbeat by heartbeat: the member keeps its epoch while it lists
// any partition pending revocation, and the new owner of those partitions
// only gets them once the revoking member's report no longer lists them.
func TestUnrevokedWaitsForEveryPartition(t *testing.T) {
	for _, version := range []Version{Kafka40, Trunk} {
		t.Run(version.String(), func(t *testing.T) {
			owners := map[kafka.TopicPartition]int32{}
			epochOf := func(tp kafka.TopicPartition) int32 {
				if e, ok := owners[tp]; ok {
					return e
				}
				return -1
			}
			setOwner := func(m Member) {
				for _, tp := range m.Assigned.Union(m.PendingRevocation).Partitions() {
					owners[tp] = m.Epoch
				}
			}
			a := Member{State: Stable, Epoch: 5, PreviousEpoch: 4, Assigned: kafka.Assignment{"t": {0, 1, 2, 3}}}
			b := Member{State: Stable, Epoch: 5, PreviousEpoch: 4, Assigned: kafka.Assignment{}}
			setOwner(a)
			target := map[string]kafka.Assignment{"a": {"t": {0, 1}}, "b": {"t": {2, 3}}}

			step := func(m Member, id string, owned kafka.Assignment) Member {
				t.Helper()
				next, err := Reconcile(Input{Member: m, TargetEpoch: 6, Target: target[id], PartitionEpoch: epochOf,
					Owned: owned, OwnedKnown: owned != nil, Version: version})
				if err != nil {
					t.Fatal(err)
				}
				return next
			}

			a = step(a, "a", kafka.Assignment{"t": {0, 1, 2, 3}})
			if a.State != UnrevokedPartitions || a.Epoch != 5 || !a.PendingRevocation.Equal(kafka.Assignment{"t": {2, 3}}) {
				t.Fatalf("a after the new target: %v", a)
			}
			b = step(b, "b", kafka.Assignment{})
			if b.State != UnreleasedPartitions || b.Epoch != 6 || b.Assigned.Size() != 0 {
				t.Fatalf("b while a still holds its partitions: %v", b)
			}
			// a revokes partition 2 only: nothing changes for either.
			a = step(a, "a", kafka.Assignment{"t": {0, 1, 3}})
			if a.State != UnrevokedPartitions || a.Epoch != 5 {
				t.Fatalf("a with t-3 still owned: %v", a)
			}
			b = step(b, "b", kafka.Assignment{})
			if b.Assigned.Size() != 0 {
				t.Fatalf("b got partitions before a released them: %v", b)
			}
			// a acknowledges: it reaches the target epoch and frees t-2, t-3.
			a = step(a, "a", kafka.Assignment{"t": {0, 1}})
			if a.State != Stable || a.Epoch != 6 || !a.Assigned.Equal(target["a"]) {
				t.Fatalf("a after acknowledging: %v", a)
			}
			delete(owners, kafka.TopicPartition{Topic: "t", Partition: 2})
			delete(owners, kafka.TopicPartition{Topic: "t", Partition: 3})
			b = step(b, "b", kafka.Assignment{})
			if b.State != Stable || b.Epoch != 6 || !b.Assigned.Equal(target["b"]) {
				t.Fatalf("b after a released: %v", b)
			}
		})
	}
}
