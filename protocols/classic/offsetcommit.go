package classic

import "github.com/rebalsim/rebalsim/sim"

// ValidateOffsetCommit is ClassicGroup.validateOffsetCommit for a
// consumer's OffsetCommit, the same in Kafka 4.0 to 4.3: the member must
// be known (and its static instance current), its generation the group's,
// and the group not waiting for SyncGroup (REBALANCE_IN_PROGRESS, so that
// the client rejoins gracefully). A group preparing a rebalance still
// accepts commits of the current generation: that is where onJoinPrepare's
// auto-commit lands. None means the commit is accepted.
func (g *Group) ValidateOffsetCommit(req sim.OffsetCommit) ErrorCode {
	if g.state == Dead {
		return CoordinatorNotAvailable
	}
	if req.GenerationIDOrMemberEpoch < 0 && g.state == Empty {
		// A commit outside group management, into an empty group.
		return None
	}
	if req.GenerationIDOrMemberEpoch >= 0 || req.MemberID != "" || req.GroupInstanceID != "" {
		if _, code := g.validateExistingMember(req.MemberID, req.GroupInstanceID); code != None {
			return code
		}
		if req.GenerationIDOrMemberEpoch != g.generation {
			return IllegalGeneration
		}
	} else if g.state != Empty {
		return UnknownMemberID
	}
	if g.state == CompletingRebalance {
		return RebalanceInProgress
	}
	return None
}

// offsetCommitResponse answers req with code for every partition.
func offsetCommitResponse(req sim.OffsetCommit, code ErrorCode) sim.OffsetCommitResponse {
	if code == None {
		return sim.OffsetCommitResponse{}
	}
	return sim.RejectAll(req, string(code))
}
