// Package cooperative is the classic group protocol's COOPERATIVE rebalance
// protocol on the client (KIP-429, reference §2.8): a member keeps, and
// keeps processing, its partitions during a rebalance; after SyncGroup it
// revokes only what it lost and, if it revoked anything, rejoins at once so
// that a follow-up rebalance hands the freed partitions to their new
// owners. Moving a partition therefore takes two rebalances, and only the
// moved partitions stop.
package cooperative

import (
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
)

// Strategy implements classic.Strategy for COOPERATIVE.
type Strategy struct{}

// Protocol is COOPERATIVE.
func (Strategy) Protocol() kafka.RebalanceProtocol { return kafka.Cooperative }

// OnJoinPrepare revokes only partitions of topics no longer subscribed;
// nil when there are none, as on almost every rebalance (every member
// passes here each time).
func (Strategy) OnJoinPrepare(owned kafka.Assignment, subscription []string) kafka.Assignment {
	var revoke kafka.Assignment
	for t, ps := range owned {
		if len(ps) > 0 && !slices.Contains(subscription, t) {
			if revoke == nil {
				revoke = kafka.Assignment{}
			}
			revoke[t] = slices.Clone(ps)
		}
	}
	return revoke
}

// OnJoinComplete revokes owned − assigned, adds assigned − owned, and asks
// for the follow-up rebalance when something was revoked.
func (Strategy) OnJoinComplete(owned, assigned kafka.Assignment) (revoke, add kafka.Assignment, rejoin bool) {
	revoke = owned.Minus(assigned)
	return revoke, assigned.Minus(owned), revoke.Size() > 0
}
