package conformance

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/nextgen/reconcile"
)

// This file reads reconciliation vectors (CurrentAssignmentBuilder).

// reconciliation is a reconciliation vector: one member and target, and
// one or more cases of partition epochs, owned partitions and expectation.
type reconciliation struct {
	member      reconcile.Member
	targetEpoch int32
	target      kafka.Assignment
	cases       []reconCase
}

type reconCase struct {
	label      string
	epochs     partitionEpochs
	owned      kafka.Assignment
	ownedKnown bool
	want       reconExpectation
}

type partitionEpochs struct {
	def       int32
	topic     map[string]int32
	partition map[kafka.TopicPartition]int32
}

type reconExpectation struct {
	pos       string
	member    *expectedMember
	err       string
	unchanged bool
}

// expectedMember holds the fields an expected member states; nil fields
// are not compared.
type expectedMember struct {
	state                   *reconcile.State
	epoch, previousEpoch    *int32
	assigned, pending       kafka.Assignment
	subscription            []string
	hasAssigned, hasPending bool
	hasSubscription         bool
	assignedPos, pendingPos string
}

var reconInputKeys = []string{"member", "target", "partition_epoch", "owned", "owned_cases", "cases"}

func parseReconciliation(in, want node, hasWant bool, v *Vector) (*reconciliation, error) {
	fs, err := in.fields()
	if err != nil {
		return nil, err
	}
	r := &reconciliation{}
	var (
		epochs                  = partitionEpochs{def: -1}
		owned                   kafka.Assignment
		ownedKnown, hasOwned    bool
		ownedCases, cases       []node
		hasMember, hasTarget    bool
		hasOwnedCases, hasCases bool
	)
	for _, f := range fs {
		switch f.key {
		case "member":
			r.member, err = parseReconMember(f.value)
			hasMember = true
		case "target":
			r.targetEpoch, r.target, err = parseTarget(f.value)
			hasTarget = true
		case "partition_epoch":
			epochs, err = parsePartitionEpochs(f.value)
		case "owned":
			owned, ownedKnown, err = parseOwned(f.value)
			hasOwned = true
		case "owned_cases":
			ownedCases, err = f.value.items()
			hasOwnedCases = true
		case "cases":
			cases, err = f.value.items()
			hasCases = true
		default:
			err = f.name.errorf("input: %s", unknownKey(f, reconInputKeys))
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasMember || !hasTarget {
		return nil, in.errorf("a reconciliation input needs a member and a target")
	}
	var shared reconExpectation
	if hasWant {
		if shared, err = parseReconExpectation(want, v); err != nil {
			return nil, err
		}
	}
	switch {
	case hasCases:
		if hasOwned || hasOwnedCases {
			v.unsupported = append(v.unsupported, in.at()+": input has both cases and owned/owned_cases")
		}
		for i, c := range cases {
			rc, err := parseReconCase(c, epochs, shared, hasWant, v)
			if err != nil {
				return nil, err
			}
			rc.label = fmt.Sprintf("case %d", i+1)
			r.cases = append(r.cases, rc)
		}
	case hasOwnedCases:
		if !hasWant {
			return nil, in.errorf("owned_cases need an expected block")
		}
		for i, c := range ownedCases {
			o, known, err := parseOwned(c)
			if err != nil {
				return nil, err
			}
			r.cases = append(r.cases, reconCase{label: fmt.Sprintf("owned case %d", i+1), epochs: epochs, owned: o, ownedKnown: known, want: shared})
		}
	default:
		if !hasWant {
			return nil, in.errorf("a reconciliation vector needs an expected block or cases")
		}
		r.cases = []reconCase{{label: "", epochs: epochs, owned: owned, ownedKnown: ownedKnown, want: shared}}
	}
	return r, nil
}

func parseReconCase(n node, epochs partitionEpochs, shared reconExpectation, hasShared bool, v *Vector) (reconCase, error) {
	fs, err := n.fields()
	if err != nil {
		return reconCase{}, err
	}
	rc := reconCase{epochs: epochs, want: shared}
	hasWant := hasShared
	for _, f := range fs {
		switch f.key {
		case "partition_epoch":
			rc.epochs, err = parsePartitionEpochs(f.value)
		case "owned":
			rc.owned, rc.ownedKnown, err = parseOwned(f.value)
		case "expected":
			rc.want, err = parseReconExpectation(f.value, v)
			hasWant = true
		default:
			err = f.name.errorf("case: %s", unknownKey(f, []string{"partition_epoch", "owned", "expected"}))
		}
		if err != nil {
			return reconCase{}, err
		}
	}
	if !hasWant {
		return reconCase{}, n.errorf("case without an expected block")
	}
	return rc, nil
}

// parseOwned reads an owned list; null means the heartbeat did not carry
// the field.
func parseOwned(n node) (kafka.Assignment, bool, error) {
	if n.isNull() {
		return nil, false, nil
	}
	a, err := n.assignment()
	return a, true, err
}

func parseState(n node) (reconcile.State, error) {
	s, err := n.str()
	if err != nil {
		return 0, err
	}
	for _, st := range []reconcile.State{reconcile.Stable, reconcile.UnrevokedPartitions, reconcile.UnreleasedPartitions, reconcile.Unknown} {
		if st.String() == s {
			return st, nil
		}
	}
	return 0, n.errorf("want STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS or UNKNOWN, found %q", s)
}

var reconMemberKeys = []string{"state", "epoch", "previous_epoch", "assigned", "pending_revocation", "subscription"}

func parseReconMember(n node) (reconcile.Member, error) {
	e, err := parseExpectedMember(n)
	if err != nil {
		return reconcile.Member{}, err
	}
	if e.state == nil || e.epoch == nil || e.previousEpoch == nil {
		return reconcile.Member{}, n.errorf("an input member needs state, epoch and previous_epoch")
	}
	m := reconcile.Member{State: *e.state, Epoch: *e.epoch, PreviousEpoch: *e.previousEpoch,
		Assigned: e.assigned, PendingRevocation: e.pending, Subscription: e.subscription}
	if m.Assigned == nil {
		m.Assigned = kafka.Assignment{}
	}
	if m.PendingRevocation == nil {
		m.PendingRevocation = kafka.Assignment{}
	}
	return m, nil
}

func parseExpectedMember(n node) (*expectedMember, error) {
	fs, err := n.fields()
	if err != nil {
		return nil, err
	}
	e := &expectedMember{}
	for _, f := range fs {
		switch f.key {
		case "state":
			var st reconcile.State
			st, err = parseState(f.value)
			e.state = &st
		case "epoch":
			var x int32
			x, err = f.value.int32()
			e.epoch = &x
		case "previous_epoch":
			var x int32
			x, err = f.value.int32()
			e.previousEpoch = &x
		case "assigned":
			e.assigned, err = f.value.assignment()
			e.hasAssigned, e.assignedPos = true, f.value.at()
		case "pending_revocation":
			e.pending, err = f.value.assignment()
			e.hasPending, e.pendingPos = true, f.value.at()
		case "subscription":
			e.subscription, err = f.value.strings()
			e.hasSubscription = true
		default:
			err = f.name.errorf("%s", unknownKey(f, reconMemberKeys))
		}
		if err != nil {
			return nil, err
		}
	}
	return e, nil
}

func parseTarget(n node) (int32, kafka.Assignment, error) {
	fs, err := n.fields()
	if err != nil {
		return 0, nil, err
	}
	var epoch int32
	var a kafka.Assignment
	hasEpoch := false
	for _, f := range fs {
		switch f.key {
		case "epoch":
			epoch, err = f.value.int32()
			hasEpoch = true
		case "assignment":
			a, err = f.value.assignment()
		default:
			err = f.name.errorf("%s", unknownKey(f, []string{"epoch", "assignment"}))
		}
		if err != nil {
			return 0, nil, err
		}
	}
	if !hasEpoch {
		return 0, nil, n.errorf("a target needs an epoch")
	}
	if a == nil {
		a = kafka.Assignment{}
	}
	return epoch, a, nil
}

// parsePartitionEpochs reads {default: e, overrides: {topic: e | {partition: e}}}.
func parsePartitionEpochs(n node) (partitionEpochs, error) {
	pe := partitionEpochs{def: -1, topic: map[string]int32{}, partition: map[kafka.TopicPartition]int32{}}
	fs, err := n.fields()
	if err != nil {
		return pe, err
	}
	for _, f := range fs {
		switch f.key {
		case "default":
			if pe.def, err = f.value.int32(); err != nil {
				return pe, err
			}
		case "overrides":
			tfs, err := f.value.fields()
			if err != nil {
				return pe, err
			}
			for _, tf := range tfs {
				if tf.value.n.Kind != yaml.MappingNode {
					if pe.topic[tf.key], err = tf.value.int32(); err != nil {
						return pe, err
					}
					continue
				}
				pfs, err := tf.value.fields()
				if err != nil {
					return pe, err
				}
				for _, pf := range pfs {
					var p int32
					if _, err := fmt.Sscanf(pf.key, "%d", &p); err != nil {
						return pe, pf.value.errorf("want a partition number as key, found %q", pf.key)
					}
					if pe.partition[kafka.TopicPartition{Topic: tf.key, Partition: p}], err = pf.value.int32(); err != nil {
						return pe, err
					}
				}
			}
		default:
			return pe, f.name.errorf("%s", unknownKey(f, []string{"default", "overrides"}))
		}
	}
	return pe, nil
}

func (pe partitionEpochs) of(tp kafka.TopicPartition) int32 {
	if e, ok := pe.partition[tp]; ok {
		return e
	}
	if e, ok := pe.topic[tp.Topic]; ok {
		return e
	}
	return pe.def
}

func parseReconExpectation(n node, v *Vector) (reconExpectation, error) {
	fs, err := n.fields()
	if err != nil {
		return reconExpectation{}, err
	}
	e := reconExpectation{pos: n.at()}
	for _, f := range fs {
		switch f.key {
		case "member":
			e.member, err = parseExpectedMember(f.value)
		case "error":
			e.err, err = f.value.str()
		case "unchanged":
			e.unchanged, err = f.value.bool()
		default:
			err = f.name.errorf("expected: %s", unknownKey(f, []string{"member", "error", "unchanged"}))
		}
		if err != nil {
			return reconExpectation{}, err
		}
	}
	n1 := 0
	for _, b := range []bool{e.member != nil, e.err != "", e.unchanged} {
		if b {
			n1++
		}
	}
	if n1 != 1 {
		return reconExpectation{}, n.errorf("want exactly one of member, error or unchanged: true")
	}
	return e, nil
}
