package nextgen

import (
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
)

// Error codes the consumer protocol adds to the classic ones, by their Kafka
// names (org.apache.kafka.common.protocol.Errors). The type is the classic
// package's, so that a coordinator serving both protocols speaks one
// vocabulary.
const (
	None                 = classic.None
	FencedMemberEpoch    = classic.ErrorCode("FENCED_MEMBER_EPOCH")
	UnknownMemberID      = classic.UnknownMemberID
	UnreleasedInstanceID = classic.ErrorCode("UNRELEASED_INSTANCE_ID")
	FencedInstanceID     = classic.FencedInstanceID
	UnsupportedAssignor  = classic.ErrorCode("UNSUPPORTED_ASSIGNOR")
	GroupMaxSizeReached  = classic.GroupMaxSizeReached
	InvalidRequest       = classic.ErrorCode("INVALID_REQUEST")
	// GroupIDNotFound answers a ConsumerGroupHeartbeat for a group that is
	// classic and may not be converted (GroupMetadataManager
	// .getOrMaybeCreateConsumerGroup throws GroupIdNotFoundException).
	GroupIDNotFound = classic.ErrorCode("GROUP_ID_NOT_FOUND")
)

// Special member epochs of ConsumerGroupHeartbeatRequest.
const (
	// JoinGroupMemberEpoch joins (or rejoins) the group.
	JoinGroupMemberEpoch int32 = 0
	// LeaveGroupMemberEpoch leaves the group for good.
	LeaveGroupMemberEpoch int32 = -1
	// LeaveGroupStaticMemberEpoch is a static member leaving temporarily: it
	// keeps its assignment until its session times out (KIP-848 §static).
	LeaveGroupStaticMemberEpoch int32 = -2
)

// ConsumerGroupHeartbeatRequest is the one RPC of the consumer protocol
// (ConsumerGroupHeartbeatRequest.json, reference §4.1). The group id is
// implicit: a coordinator model serves one group. Fields that a member
// sends only when they changed are nil (or -1) otherwise.
type ConsumerGroupHeartbeatRequest struct {
	// CorrelationID is the request header's correlation id; the response
	// echoes it so that the client can drop responses to requests it has
	// given up on (a timed-out request's connection is closed in Kafka).
	CorrelationID int32  `json:"correlation_id"`
	MemberID      string `json:"member_id"`
	// MemberEpoch is 0 to join, -1 to leave, -2 for a static member leaving
	// temporarily, else the member's current epoch.
	MemberEpoch int32  `json:"member_epoch"`
	InstanceID  string `json:"instance_id,omitempty"`
	// RebalanceTimeoutMs is max.poll.interval.ms; -1 = unchanged.
	RebalanceTimeoutMs int32 `json:"rebalance_timeout_ms"`
	// SubscribedTopicNames is nil when unchanged.
	SubscribedTopicNames []string `json:"subscribed_topic_names"`
	// ServerAssignor is group.remote.assignor; "" = null (unchanged or none).
	ServerAssignor string `json:"server_assignor,omitempty"`
	// TopicPartitions are the partitions the member owns; nil = unchanged.
	TopicPartitions kafka.Assignment `json:"topic_partitions"`
}

// ConsumerGroupHeartbeatResponse answers a ConsumerGroupHeartbeatRequest.
type ConsumerGroupHeartbeatResponse struct {
	CorrelationID       int32             `json:"correlation_id"`
	ErrorCode           classic.ErrorCode `json:"error_code"`
	MemberID            string            `json:"member_id,omitempty"`
	MemberEpoch         int32             `json:"member_epoch"`
	HeartbeatIntervalMs int32             `json:"heartbeat_interval_ms"`
	// Assignment is the member's assigned partitions; nil when the member
	// sent a partial request and its assignment did not change.
	Assignment kafka.Assignment `json:"assignment"`
}

// Kind names the request in traces.
func (ConsumerGroupHeartbeatRequest) Kind() string { return "ConsumerGroupHeartbeat" }

// Kind names the response in traces.
func (ConsumerGroupHeartbeatResponse) Kind() string { return "ConsumerGroupHeartbeatResponse" }

// isFullRequest tells whether the request carries every field a join
// carries; the coordinator then always returns the assignment
// (consumerGroupHeartbeat, end).
func (r ConsumerGroupHeartbeatRequest) isFullRequest() bool {
	return r.MemberEpoch == JoinGroupMemberEpoch || (r.RebalanceTimeoutMs != -1 && r.SubscribedTopicNames != nil && r.TopicPartitions != nil)
}

func toMs(d time.Duration) int32 { return int32(d / time.Millisecond) }

func fromMs(ms int32) time.Duration { return time.Duration(ms) * time.Millisecond }
