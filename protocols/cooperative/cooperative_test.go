package cooperative

import (
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

func TestStrategy(t *testing.T) {
	s := Strategy{}
	owned := kafka.Assignment{"orders": {0, 1, 2}, "old": {5}}
	// Only partitions of topics no longer subscribed go before JoinGroup.
	if got := s.OnJoinPrepare(owned, []string{"orders"}); !got.Equal(kafka.Assignment{"old": {5}}) {
		t.Errorf("OnJoinPrepare = %v", got)
	}
	revoke, add, rejoin := s.OnJoinComplete(kafka.Assignment{"orders": {0, 1, 2}}, kafka.Assignment{"orders": {1, 2, 3}})
	if !revoke.Equal(kafka.Assignment{"orders": {0}}) || !add.Equal(kafka.Assignment{"orders": {3}}) || !rejoin {
		t.Errorf("OnJoinComplete = %v, %v, %v; want revoke 0, add 3, rejoin", revoke, add, rejoin)
	}
	if _, _, rejoin := s.OnJoinComplete(kafka.Assignment{"orders": {0}}, kafka.Assignment{"orders": {0, 1}}); rejoin {
		t.Error("a member that revoked nothing must not ask for a follow-up rebalance")
	}
}
