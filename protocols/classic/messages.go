package classic

import (
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// ErrorCode is a Kafka protocol error code, by its Kafka name.
type ErrorCode string

const (
	None                      ErrorCode = "NONE"
	MemberIDRequired          ErrorCode = "MEMBER_ID_REQUIRED"
	RebalanceInProgress       ErrorCode = "REBALANCE_IN_PROGRESS"
	UnknownMemberID           ErrorCode = "UNKNOWN_MEMBER_ID"
	IllegalGeneration         ErrorCode = "ILLEGAL_GENERATION"
	FencedInstanceID          ErrorCode = "FENCED_INSTANCE_ID"
	InconsistentGroupProtocol ErrorCode = "INCONSISTENT_GROUP_PROTOCOL"
	GroupMaxSizeReached       ErrorCode = "GROUP_MAX_SIZE_REACHED"
	CoordinatorNotAvailable   ErrorCode = "COORDINATOR_NOT_AVAILABLE"
	InvalidSessionTimeout     ErrorCode = "INVALID_SESSION_TIMEOUT"
)

// Subscription is the consumer protocol's subscription metadata carried in
// JoinGroup for one assignor (ConsumerProtocolSubscription v2+).
type Subscription struct {
	Topics []string         `json:"topics"`
	Owned  kafka.Assignment `json:"owned_partitions,omitempty"`
	// Generation is the generation Owned was held in, -1 if none.
	Generation int32 `json:"generation"`
}

// ProtocolMetadata is one (assignor name, subscription) entry of JoinGroup.
type ProtocolMetadata struct {
	Name     string       `json:"name"`
	Metadata Subscription `json:"metadata"`
}

// JoinGroupRequest asks to join the group's next generation.
type JoinGroupRequest struct {
	ClientID         string             `json:"client_id"`
	MemberID         string             `json:"member_id"`
	GroupInstanceID  string             `json:"group_instance_id,omitempty"`
	SessionTimeout   time.Duration      `json:"session_timeout"`
	RebalanceTimeout time.Duration      `json:"rebalance_timeout"`
	Protocols        []ProtocolMetadata `json:"protocols"`
}

// JoinGroupMember is one member in the leader's JoinGroup response.
type JoinGroupMember struct {
	MemberID        string       `json:"member_id"`
	GroupInstanceID string       `json:"group_instance_id,omitempty"`
	Metadata        Subscription `json:"metadata"`
}

// JoinGroupResponse answers a JoinGroup when the join phase completes (or
// at once, for errors and for rejoins that need no rebalance).
type JoinGroupResponse struct {
	Error          ErrorCode         `json:"error"`
	Generation     int32             `json:"generation"`
	ProtocolName   string            `json:"protocol_name,omitempty"`
	Leader         string            `json:"leader,omitempty"`
	MemberID       string            `json:"member_id"`
	SkipAssignment bool              `json:"skip_assignment,omitempty"`
	Members        []JoinGroupMember `json:"members,omitempty"`
}

// SyncGroupRequest completes a rebalance; the leader's carries every
// member's assignment.
type SyncGroupRequest struct {
	MemberID        string                      `json:"member_id"`
	GroupInstanceID string                      `json:"group_instance_id,omitempty"`
	Generation      int32                       `json:"generation"`
	Assignments     map[string]kafka.Assignment `json:"assignments,omitempty"`
}

// SyncGroupResponse hands a member its assignment.
type SyncGroupResponse struct {
	Error      ErrorCode        `json:"error"`
	Assignment kafka.Assignment `json:"assignment,omitempty"`
}

// HeartbeatRequest keeps a member's session alive.
type HeartbeatRequest struct {
	MemberID        string `json:"member_id"`
	GroupInstanceID string `json:"group_instance_id,omitempty"`
	Generation      int32  `json:"generation"`
}

// HeartbeatResponse tells the member whether a rebalance is under way.
type HeartbeatResponse struct {
	Error ErrorCode `json:"error"`
}

// LeaveGroupRequest removes a member at once.
type LeaveGroupRequest struct {
	MemberID        string `json:"member_id"`
	GroupInstanceID string `json:"group_instance_id,omitempty"`
}

// LeaveGroupResponse acknowledges a LeaveGroup.
type LeaveGroupResponse struct {
	Error ErrorCode `json:"error"`
}

func (JoinGroupRequest) Kind() string   { return "JoinGroup" }
func (JoinGroupResponse) Kind() string  { return "JoinGroupResponse" }
func (SyncGroupRequest) Kind() string   { return "SyncGroup" }
func (SyncGroupResponse) Kind() string  { return "SyncGroupResponse" }
func (HeartbeatRequest) Kind() string   { return "Heartbeat" }
func (HeartbeatResponse) Kind() string  { return "HeartbeatResponse" }
func (LeaveGroupRequest) Kind() string  { return "LeaveGroup" }
func (LeaveGroupResponse) Kind() string { return "LeaveGroupResponse" }

// MayBeHeld: the coordinator holds a JoinGroup until the join phase
// completes and a SyncGroup until the leader's assignment
// (sim.HeldRequest).
func (JoinGroupRequest) MayBeHeld() {}
func (SyncGroupRequest) MayBeHeld() {}
