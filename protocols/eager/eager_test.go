package eager

import (
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

func TestStrategy(t *testing.T) {
	s := Strategy{}
	owned := kafka.Assignment{"orders": {0, 1, 2}}
	if got := s.OnJoinPrepare(owned, []string{"orders"}); !got.Equal(owned) {
		t.Errorf("OnJoinPrepare = %v, want everything owned", got)
	}
	// After revoking everything the member owns nothing: the whole new
	// assignment is added, and no follow-up rebalance is needed.
	revoke, add, rejoin := s.OnJoinComplete(kafka.Assignment{}, kafka.Assignment{"orders": {1, 3}})
	if revoke.Size() != 0 || !add.Equal(kafka.Assignment{"orders": {1, 3}}) || rejoin {
		t.Errorf("OnJoinComplete = %v, %v, %v", revoke, add, rejoin)
	}
}
