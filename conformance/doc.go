// Package conformance runs test vectors — inputs and asserted outcomes
// extracted from Apache Kafka's own unit tests — against rebalsim's
// assignors and reconciliation, or against any implementation plugged in
// through Options.
//
// A vector file follows the schema documented at the top of
// testdata/kafka-vectors.yaml. The package loads any file in that schema,
// not only rebalsim's copy, and reports one Outcome per vector and
// assignor: Pass, Fail with a readable difference (expected and actual
// partitions per member, as sets, with what is missing and extra), or Skip
// with the reason.
//
// # Use
//
//	f, err := conformance.Load("kafka-vectors.yaml")
//	if err != nil {
//		return err // names file:line:column and the schema path
//	}
//	for _, o := range f.Run(conformance.Options{}) {
//		fmt.Println(o)
//	}
//
// # How each form is executed
//
//   - client_assignor: the assignor (or each one of a list) runs on the
//     input. For an assignor supporting COOPERATIVE, the run continues with
//     follow-up rebalances — every member owning what it was just given, one
//     generation later — until nothing is withheld; expected.assignment is
//     compared with that final state, first_round with the first call, and
//     transferring (a map, or null for the general path) with the first
//     call's Result.Transferring.
//   - server_assignor: the nextgen assignor runs once on a GroupSpec built
//     from the members in file order with the given subscription_type (or
//     the homogeneous/heterogeneous rule when absent); server-range means
//     nextgen.Range.
//   - reconciliation: each case (owned, owned_cases or cases) is one call to
//     reconcile.Reconcile, with version trunk selecting reconcile.Trunk.
//     expected.member compares the fields it states, unchanged: true every
//     field of the input member, error the error's Kafka code.
//   - exact: true and derived compare whole assignments (a derived failure
//     says so), partial and assignment_partial only the listed members,
//     false compares nothing exactly. assignment_by_instance is keyed by
//     group.instance.id.
//   - order_sensitive with reproduce_with runs the assignor with that topic
//     slice order and member order; without it, an exact mismatch is a
//     Skip, since Kafka's answer came from Java hash order.
//   - then: a list of {step, expected}, or input.then with
//     expected.after_then, changes the group in a small language ("remove
//     consumer4, add dynamic consumer5", "add memberA1 with instance_id
//     instanceA") and assigns again from the previous result. input.steps
//     lists member sets assigned one after the other, checked with
//     per_topic_count_per_member_by_step.
//   - properties: valid, balanced, sticky (no more moves than balance
//     needs, for equal subscriptions), coop_safe (in every call of a
//     cooperative run), unchanged_after_member_id_change (every member
//     gets a new id, the result must not change per instance) and the
//     free-text "balanced after follow-up rebalances".
//
// # Strictness
//
// Malformed input is an error from Load and Parse. What is well-formed but
// cannot be checked faithfully — an unknown vector kind, an unknown key, a
// property or step description the runner does not understand — loads
// fine and is reported as Skip with the reason and its file:line, never as
// a pass with the assertion ignored.
package conformance
