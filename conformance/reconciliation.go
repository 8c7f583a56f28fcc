package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/nextgen/reconcile"
)

// runReconciliation runs every case of a reconciliation vector through
// one step of CurrentAssignmentBuilder and compares the member it returns.
func (v *Vector) runReconciliation(opts Options) *report {
	r := &report{}
	rv := v.recon
	version := reconcile.Kafka40
	if v.Version == "trunk" {
		version = reconcile.Trunk
	}
	for _, c := range rv.cases {
		prefix := ""
		if len(rv.cases) > 1 {
			prefix = c.label + ": "
		}
		in := reconcile.Input{
			Member:         cloneMember(rv.member),
			TargetEpoch:    rv.targetEpoch,
			Target:         rv.target.Clone(),
			PartitionEpoch: c.epochs.of,
			Owned:          c.owned.Clone(),
			OwnedKnown:     c.ownedKnown,
			Version:        version,
		}
		got, err := opts.reconcile(in)
		w := c.want
		switch {
		case w.err != "":
			switch {
			case err == nil:
				r.fail("%serror: expected %s, got member %s", prefix, w.err, renderMember(got))
			case !errorMatches(err, w.err):
				r.fail("%serror: expected %s, got %v", prefix, w.err, err)
			default:
				r.pass(prefix + "error " + w.err)
			}
		case err != nil:
			r.fail("%sunexpected error: %v", prefix, err)
		case w.unchanged:
			r.check(prefix+"member unchanged", memberDiff(memberAsExpected(rv.member), got))
		default:
			r.check(prefix+"member", memberDiff(w.member, got))
		}
	}
	return r
}

// errorMatches accepts the error whose text is the expected Kafka error
// code, or that wraps it.
func errorMatches(err error, code string) bool {
	if code == reconcile.ErrFencedMemberEpoch.Error() && errors.Is(err, reconcile.ErrFencedMemberEpoch) {
		return true
	}
	return err.Error() == code || strings.Contains(err.Error(), code)
}

func cloneMember(m reconcile.Member) reconcile.Member {
	m.Assigned = m.Assigned.Clone()
	m.PendingRevocation = m.PendingRevocation.Clone()
	m.Subscription = slices.Clone(m.Subscription)
	return m
}

// memberAsExpected turns an input member into an expectation on every field.
func memberAsExpected(m reconcile.Member) *expectedMember {
	return &expectedMember{
		state: &m.State, epoch: &m.Epoch, previousEpoch: &m.PreviousEpoch,
		assigned: m.Assigned, pending: m.PendingRevocation, subscription: m.Subscription,
		hasAssigned: true, hasPending: true, hasSubscription: true,
	}
}

func renderMember(m reconcile.Member) string {
	return fmt.Sprintf("{state %s, epoch %d, previous_epoch %d, assigned %s, pending_revocation %s}",
		m.State, m.Epoch, m.PreviousEpoch, set(m.Assigned), set(m.PendingRevocation))
}

// memberDiff compares the fields the expectation states, assignments as sets.
func memberDiff(w *expectedMember, got reconcile.Member) string {
	var problems []string
	if w.state != nil && *w.state != got.State {
		problems = append(problems, fmt.Sprintf("state: expected %s, got %s", *w.state, got.State))
	}
	if w.epoch != nil && *w.epoch != got.Epoch {
		problems = append(problems, fmt.Sprintf("epoch: expected %d, got %d", *w.epoch, got.Epoch))
	}
	if w.previousEpoch != nil && *w.previousEpoch != got.PreviousEpoch {
		problems = append(problems, fmt.Sprintf("previous_epoch: expected %d, got %d", *w.previousEpoch, got.PreviousEpoch))
	}
	compare := func(name string, has bool, want, got kafka.Assignment) {
		if has && !want.Equal(got) {
			problems = append(problems, fmt.Sprintf("%s: expected %s, got %s", name, set(want), set(got)))
		}
	}
	compare("assigned", w.hasAssigned, w.assigned, got.Assigned)
	compare("pending_revocation", w.hasPending, w.pending, got.PendingRevocation)
	if w.hasSubscription && !slices.Equal(w.subscription, got.Subscription) {
		problems = append(problems, fmt.Sprintf("subscription: expected %v, got %v", w.subscription, got.Subscription))
	}
	return bullets(problems)
}
