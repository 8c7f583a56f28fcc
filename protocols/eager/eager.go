// Package eager is the classic group protocol's EAGER rebalance protocol
// on the client: at every rebalance a member revokes everything it owns
// before it rejoins, and gets its partitions back only when the new
// generation's assignment arrives (reference §2.7). Processing of every
// partition of every member stops in between; that stop-the-world window is
// what rebalsim measures against the incremental protocols.
package eager

import "github.com/rebalsim/rebalsim/kafka"

// Strategy implements classic.Strategy for EAGER.
type Strategy struct{}

// Protocol is EAGER.
func (Strategy) Protocol() kafka.RebalanceProtocol { return kafka.Eager }

// OnJoinPrepare revokes every owned partition: it hands back owned
// itself, as assignments are values nobody changes in place.
func (Strategy) OnJoinPrepare(owned kafka.Assignment, _ []string) kafka.Assignment {
	return owned
}

// OnJoinComplete assigns the whole new assignment: nothing is owned any
// more, so nothing is revoked and no follow-up rebalance is needed.
func (Strategy) OnJoinComplete(owned, assigned kafka.Assignment) (revoke, add kafka.Assignment, rejoin bool) {
	return owned.Minus(assigned), assigned.Minus(owned), false
}
