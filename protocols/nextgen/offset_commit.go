package nextgen

import (
	"cmp"
	"fmt"
	"slices"

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
// takes the member's new epoch. Per topic, the partitions ascending with
// their epochs, so that moving them along is a walk beside the member's
// sorted partition lists, not a hash of topic and partition each.
type assignmentEpochs map[string][]partitionEpoch

type partitionEpoch struct{ partition, epoch int32 }

// get returns the epoch at which tp was assigned, and whether it is the
// member's at all.
func (ae assignmentEpochs) get(tp kafka.TopicPartition) (int32, bool) {
	pes := ae[tp.Topic]
	i, ok := slices.BinarySearchFunc(pes, tp.Partition, func(pe partitionEpoch, p int32) int { return cmp.Compare(pe.partition, p) })
	if !ok {
		return 0, false
	}
	return pes[i].epoch, true
}

// noteAssignment moves m's assignment epochs along to its next
// reconciliation record: kept partitions keep theirs, new ones take
// epoch, released ones are dropped.
func (m *member) noteAssignment(next kafka.Assignment, pending kafka.Assignment, epoch int32) {
	old := m.assignmentEpochs
	m.assignmentEpochs = make(assignmentEpochs, len(next)+len(pending))
	for _, a := range []kafka.Assignment{next, pending} {
		for t := range a {
			if _, done := m.assignmentEpochs[t]; done {
				continue
			}
			if pes := mergeEpochs(old[t], next[t], pending[t], epoch); len(pes) > 0 {
				m.assignmentEpochs[t] = pes
			}
		}
	}
}

// mergeEpochs lists the partitions of one topic that a member holds
// (next) or is revoking (pending), both ascending, with the epoch old
// gives each, or epoch for those old does not have.
func mergeEpochs(old []partitionEpoch, next, pending []int32, epoch int32) []partitionEpoch {
	out := make([]partitionEpoch, 0, len(next)+len(pending))
	i, j, k := 0, 0, 0
	for j < len(next) || k < len(pending) {
		var p int32
		switch {
		case k == len(pending) || (j < len(next) && next[j] < pending[k]):
			p = next[j]
			j++
		case j == len(next) || pending[k] < next[j]:
			p = pending[k]
			k++
		default: // in both: counted once
			p = next[j]
			j++
			k++
		}
		for i < len(old) && old[i].partition < p {
			i++
		}
		e := epoch
		if i < len(old) && old[i].partition == p {
			e = old[i].epoch
		}
		out = append(out, partitionEpoch{p, e})
	}
	return out
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
		if at, ok := m.assignmentEpochs.get(tp); !ok || at > epoch {
			r.Rejected = append(r.Rejected, sim.CommitError{Partition: tp, Error: string(stale)})
		}
	}
	return r
}

// onOffsetCommit answers an OffsetCommit to the group, whichever its type.
// msg is req as it arrived, handed on to a classic group as it is rather
// than boxed again: every member's auto-commit passes here.
func (c *Coordinator) onOffsetCommit(env sim.CoordinatorEnv, from sim.Endpoint, msg sim.Message, req sim.OffsetCommit, out *sim.Effects) {
	if c.consumer == nil {
		c.classic.Receive(env, from, msg, out)
		return
	}
	out.Send(from, c.consumer.validateOffsetCommit(env.Release, req))
}

// String prints the epochs in partition order, for tests.
func (ae assignmentEpochs) String() string {
	topics := make([]string, 0, len(ae))
	for t := range ae {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	s := ""
	for _, t := range topics {
		for _, pe := range ae[t] {
			if s != "" {
				s += " "
			}
			s += fmt.Sprintf("%s@%d", kafka.TopicPartition{Topic: t, Partition: pe.partition}, pe.epoch)
		}
	}
	return s
}
