package nextgen

import (
	"fmt"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/sim"
)

// StaleMemberEpoch rejects an offset commit whose member epoch the
// coordinator does not accept.
const StaleMemberEpoch = classic.ErrorCode("STALE_MEMBER_EPOCH")

// assignmentEpochs is, for one member, the epoch at which each partition
// it holds or is revoking was assigned to it (KIP-1251,
// ConsumerGroupMember.assignedPartitionsWithEpochs and
// partitionsPendingRevocationWithEpochs): a partition the member keeps
// keeps its epoch across the member's epoch bumps, a newly assigned one
// takes the member's new epoch.
type assignmentEpochs map[kafka.TopicPartition]int32

// noteAssignment moves m's assignment epochs along to its next
// reconciliation record: kept partitions keep theirs, new ones take
// epoch, released ones are dropped.
//
// It runs on every reconciliation record, which at each epoch bump is
// every member's, most of them keeping what they hold: so it first adds
// what is new, counting what is held, and walks the map for released
// partitions only when it holds more than that.
func (m *member) noteAssignment(next kafka.Assignment, pending kafka.Assignment, epoch int32) {
	if m.assignmentEpochs == nil {
		m.assignmentEpochs = assignmentEpochs{}
	}
	held := 0
	for i, a := range []kafka.Assignment{next, pending} {
		for t, ps := range a {
			for _, p := range ps {
				tp := kafka.TopicPartition{Topic: t, Partition: p}
				if i == 1 && next.Contains(tp) {
					continue // counted with next
				}
				held++
				if _, ok := m.assignmentEpochs[tp]; !ok {
					m.assignmentEpochs[tp] = epoch
				}
			}
		}
	}
	if len(m.assignmentEpochs) == held {
		// Every key is a held partition: none was released.
		return
	}
	for tp := range m.assignmentEpochs {
		if !next.Contains(tp) && !pending.Contains(tp) {
			delete(m.assignmentEpochs, tp)
		}
	}
}

// validateOffsetCommit is ConsumerGroup.validateOffsetCommit for a
// member's OffsetCommit, as the Kafka release runs it, and the
// response to send:
//
//   - an unknown member gets UNKNOWN_MEMBER_ID (getOrMaybeCreateMember);
//   - up to 4.2 the epoch must be the member's current epoch
//     (validateMemberEpoch): STALE_MEMBER_EPOCH, or ILLEGAL_GENERATION for
//     a member speaking the classic protocol;
//   - from 4.3 (KIP-1251; read from the 4.3.1 group coordinator, whose
//     createAssignmentEpochValidator checks each partition) an epoch newer
//     than the member's is rejected whole, the current epoch is accepted
//     whole, and an older one is accepted for each partition the member
//     holds or is revoking that was assigned to it at that epoch or
//     before: assignmentEpoch ≤ clientEpoch ≤ brokerEpoch. The same holds
//     for classic members of the group, with ILLEGAL_GENERATION.
func (g *consumerGroup) validateOffsetCommit(release string, req sim.OffsetCommit) sim.OffsetCommitResponse {
	if req.GenerationIDOrMemberEpoch < 0 && len(g.members) == 0 {
		// A commit outside group management, into an empty group.
		return sim.OffsetCommitResponse{}
	}
	m := g.byID[req.MemberID]
	if m == nil {
		return sim.RejectAll(req, string(UnknownMemberID))
	}
	stale := StaleMemberEpoch
	if m.useClassicProtocol() {
		stale = classic.IllegalGeneration
	}
	epoch := req.GenerationIDOrMemberEpoch
	switch {
	case epoch == m.Epoch:
		return sim.OffsetCommitResponse{}
	case !sim.ReleaseAtLeast(release, "4.3") || epoch > m.Epoch:
		return sim.RejectAll(req, string(stale))
	}
	var r sim.OffsetCommitResponse
	for _, tp := range req.Partitions {
		if at, ok := m.assignmentEpochs[tp]; !ok || at > epoch {
			r.Rejected = append(r.Rejected, sim.CommitError{Partition: tp, Error: string(stale)})
		}
	}
	return r
}

// onOffsetCommit answers an OffsetCommit to the group, whichever its type.
func (c *Coordinator) onOffsetCommit(env sim.CoordinatorEnv, from sim.Endpoint, req sim.OffsetCommit, out *sim.Effects) {
	if c.consumer == nil {
		c.classic.Receive(env, from, req, out)
		return
	}
	out.Send(from, c.consumer.validateOffsetCommit(env.Release, req))
}

// String prints the epochs in partition order, for tests.
func (ae assignmentEpochs) String() string {
	tps := make([]kafka.TopicPartition, 0, len(ae))
	for tp := range ae {
		tps = append(tps, tp)
	}
	kafka.SortPartitions(tps)
	s := ""
	for i, tp := range tps {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s@%d", tp, ae[tp])
	}
	return s
}
