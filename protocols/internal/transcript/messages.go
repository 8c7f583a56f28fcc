package transcript

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/sim"
)

// Opt prints " key=value", or nothing for an empty value: the optional
// fields of a message.
func Opt(key, value string) string {
	if value == "" {
		return ""
	}
	return " " + key + "=" + value
}

// Message prints a classic-protocol message; any other message is printed
// by its kind and fields.
func Message(m sim.Message) string {
	switch r := m.(type) {
	case *classic.JoinGroupRequest:
		s := fmt.Sprintf("JoinGroup member=%s%s session=%s rebalance=%s", OrDash(r.MemberID), Opt("instance", r.GroupInstanceID),
			Duration(r.SessionTimeout), Duration(r.RebalanceTimeout))
		for _, p := range r.Protocols {
			s += fmt.Sprintf(" %s(topics=%s owned=%s gen=%d)", p.Name, strings.Join(p.Metadata.Topics, ","), Assignment(p.Metadata.Owned), p.Metadata.Generation)
		}
		return s
	case *classic.JoinGroupResponse:
		s := fmt.Sprintf("JoinGroupResponse %s member=%s gen=%d%s%s", r.Error, OrDash(r.MemberID), r.Generation,
			Opt("protocol", r.ProtocolName), Opt("leader", r.Leader))
		if r.SkipAssignment {
			s += " skip-assignment"
		}
		var ids []string
		for _, m := range r.Members {
			ids = append(ids, m.MemberID)
		}
		return s + Opt("members", strings.Join(ids, ","))
	case *classic.SyncGroupRequest:
		ids := make([]string, 0, len(r.Assignments))
		for id := range r.Assignments {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		var assign []string
		for _, id := range ids {
			assign = append(assign, id+"="+Assignment(r.Assignments[id]))
		}
		return fmt.Sprintf("SyncGroup member=%s gen=%d%s%s", OrDash(r.MemberID), r.Generation, Opt("instance", r.GroupInstanceID), Opt("assign", strings.Join(assign, "/")))
	case *classic.SyncGroupResponse:
		return fmt.Sprintf("SyncGroupResponse %s assignment=%s", r.Error, Assignment(r.Assignment))
	case *classic.HeartbeatRequest:
		return fmt.Sprintf("Heartbeat member=%s gen=%d%s", OrDash(r.MemberID), r.Generation, Opt("instance", r.GroupInstanceID))
	case *classic.HeartbeatResponse:
		return fmt.Sprintf("HeartbeatResponse %s", r.Error)
	case *classic.LeaveGroupRequest:
		return fmt.Sprintf("LeaveGroup member=%s", OrDash(r.MemberID))
	case *classic.LeaveGroupResponse:
		return fmt.Sprintf("LeaveGroupResponse %s", r.Error)
	case sim.OffsetCommit:
		return fmt.Sprintf("OffsetCommit member=%s%s epoch=%d partitions=%v", OrDash(r.MemberID), Opt("instance", r.GroupInstanceID), r.GenerationIDOrMemberEpoch, r.Partitions)
	case sim.OffsetCommitResponse:
		if len(r.Rejected) == 0 {
			return "OffsetCommitResponse NONE"
		}
		s := "OffsetCommitResponse"
		for _, e := range r.Rejected {
			s += fmt.Sprintf(" %s=%s", e.Partition, e.Error)
		}
		return s
	}
	return fmt.Sprintf("%s %+v", m.Kind(), m)
}
