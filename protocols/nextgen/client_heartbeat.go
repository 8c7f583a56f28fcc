package nextgen

import (
	"slices"
	"time"

	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/sim"
)

// The heartbeat request manager (AbstractHeartbeatRequestManager,
// ConsumerHeartbeatRequestManager): when to send a heartbeat, what to put
// in it, and what to do with the answer.

// maxRetryBackoff is retry.backoff.max.ms.
const maxRetryBackoff = time.Second

// shouldSkipHeartbeat: a member out of the group sends nothing.
func (c *Client) shouldSkipHeartbeat() bool {
	return c.state == Unsubscribed || c.state == Fatal || c.state == Stale || c.state == Fenced
}

// shouldHeartbeatNow: joining, acknowledging and leaving do not wait for
// the interval.
func (c *Client) shouldHeartbeatNow() bool {
	return c.state == Acknowledging || c.state == Leaving || c.state == Joining
}

func (c *Client) isLeavingGroup() bool { return c.state == PrepareLeaving || c.state == Leaving }

// pollTimerExpired: the application has not called poll() within
// max.poll.interval.ms. Checked on the background thread whenever it runs,
// which includes every heartbeat tick.
func (c *Client) pollTimerExpired(env sim.ClientEnv) bool {
	return env.Now-env.LastPoll > c.cfg.MaxPollInterval
}

// pollHeartbeat is AbstractHeartbeatRequestManager.poll: leave if the poll
// timer expired, else send a heartbeat if one is due, else arm the
// heartbeat timer.
func (c *Client) pollHeartbeat(env sim.ClientEnv, out *sim.Effects) {
	if c.shouldSkipHeartbeat() {
		return
	}
	if c.pollTimerExpired(env) && !c.isLeavingGroup() {
		c.transitionToSendingLeaveGroup(true, out)
		c.sendHeartbeat(env, true, out)
		c.inFlight = 0
		out.CancelTimer(sim.TimerID{Kind: timerRequestTimeout})
		c.sent.reset()
		return
	}
	if c.state == Leaving && c.memberID == "" {
		// Never got a member id: there is nothing to leave.
		c.transitionTo(Unsubscribed, out)
		c.completeLeave()
		return
	}
	heartbeatNow := c.state == Leaving || (c.shouldHeartbeatNow() && c.inFlight == 0)
	canSend := c.inFlight == 0 && env.Now >= c.nextHeartbeat && env.Now >= c.backoffUntil
	if !canSend && !heartbeatNow {
		c.armHeartbeatTimer(out)
		return
	}
	c.sendHeartbeat(env, false, out)
}

// armHeartbeatTimer wakes the background thread when the next heartbeat is
// due; with a request in flight its response (or timeout) does.
func (c *Client) armHeartbeatTimer(out *sim.Effects) {
	if c.inFlight != 0 || c.shouldSkipHeartbeat() {
		return
	}
	at := max(c.nextHeartbeat, c.backoffUntil)
	if at != c.timerAt {
		c.timerAt = at
		out.SetClientTimer(sim.TimerID{Kind: timerHeartbeat}, at, sim.BackgroundThread)
	}
}

// sendHeartbeat builds and sends a heartbeat; its response is ignored when
// ignoreResponse is set (the leave on poll timer expiry).
func (c *Client) sendHeartbeat(env sim.ClientEnv, ignoreResponse bool, out *sim.Effects) {
	req := c.buildRequestData()
	c.nextCorrelation++
	req.CorrelationID = c.nextCorrelation
	c.nextHeartbeat = env.Now + c.interval
	if !ignoreResponse {
		c.inFlight = req.CorrelationID
		out.SetClientTimer(sim.TimerID{Kind: timerRequestTimeout}, env.Now+c.cfg.RequestTimeout, sim.BackgroundThread)
	}
	out.Request(sim.BackgroundThread, c.heartbeats.New(req))
	c.onHeartbeatRequestGenerated(env, out)
	c.armHeartbeatTimer(out)
}

// buildRequestData is HeartbeatState.buildRequestData: member id and epoch
// always; everything when joining; otherwise only what changed since the
// last request. The owned partitions go out whenever the local assignment
// changed, which is how an acknowledgement reaches the coordinator.
func (c *Client) buildRequestData() ConsumerGroupHeartbeatRequest {
	req := ConsumerGroupHeartbeatRequest{MemberID: c.memberID, MemberEpoch: c.memberEpoch, InstanceID: c.cfg.GroupInstanceID, RebalanceTimeoutMs: -1}
	sendAll := c.state == Joining
	if rt := toMs(c.cfg.MaxPollInterval); sendAll || c.sent.rebalanceTimeoutMs != rt {
		req.RebalanceTimeoutMs = rt
		c.sent.rebalanceTimeoutMs = rt
	}
	if sendAll || c.sent.subscription == nil || !slices.Equal(c.sent.subscription, c.subscription) {
		req.SubscribedTopicNames = slices.Clone(c.subscription)
		c.sent.subscription = slices.Clone(c.subscription)
	}
	if a := c.cfg.RemoteAssignor; a != "" && (sendAll || c.sent.serverAssignor != a) {
		req.ServerAssignor = a
		c.sent.serverAssignor = a
	}
	if sendAll || !c.sent.hasLocal || !c.sent.local.equal(c.current) {
		req.TopicPartitions = c.current.partitions.Clone()
		c.sent.local, c.sent.hasLocal = c.current, true
	}
	return req
}

// onResponse handles a heartbeat response. Responses to requests the
// client gave up on are dropped, as a closed connection drops them.
func (c *Client) onResponse(env sim.ClientEnv, r *ConsumerGroupHeartbeatResponse, out *sim.Effects) {
	if r.CorrelationID != c.inFlight || c.inFlight == 0 {
		return
	}
	c.inFlight = 0
	out.CancelTimer(sim.TimerID{Kind: timerRequestTimeout})
	if r.ErrorCode == None {
		if iv := fromMs(r.HeartbeatIntervalMs); iv > 0 && iv != c.interval {
			c.interval = iv
			c.nextHeartbeat = env.Now + iv
		}
		c.backoff, c.backoffUntil = 0, 0
		c.onHeartbeatSuccess(r, out)
		return
	}
	c.onErrorResponse(env, r.ErrorCode, out)
}

// onHeartbeatSuccess is ConsumerMembershipManager.onHeartbeatSuccess.
func (c *Client) onHeartbeatSuccess(r *ConsumerGroupHeartbeatResponse, out *sim.Effects) {
	switch {
	case c.state == Leaving:
		return
	case c.state == Unsubscribed && c.leaveInProgress:
		c.completeLeave()
		return
	case c.state == Unsubscribed || c.state == Fenced || c.state == Fatal || c.state == Stale:
		return
	}
	c.memberID, c.memberEpoch = r.MemberID, r.MemberEpoch
	if r.Assignment != nil && c.state.canHandleNewAssignment() {
		c.processAssignmentReceived(r.Assignment, out)
	}
}

// onErrorResponse: the next request is a full one and goes out without
// waiting for the interval; fencing errors make the member rejoin at once,
// the rest are fatal for the consumer (handleSpecificError and the default
// branch of onErrorResponse).
func (c *Client) onErrorResponse(env sim.ClientEnv, code classic.ErrorCode, out *sim.Effects) {
	c.sent.reset()
	c.onFailedAttempt(env)
	if c.state == Unsubscribed && c.leaveInProgress {
		c.completeLeave()
		return
	}
	if c.state == Fenced || c.state == Stale || c.state == Fatal || c.state == Unsubscribed {
		// Not in the group any more; nothing to react to.
		return
	}
	switch code {
	case FencedMemberEpoch, UnknownMemberID:
		c.backoff, c.backoffUntil = 0, 0
		c.transitionToFenced(env, string(code), out)
	default:
		c.transitionToFatal(env, string(code), out)
	}
}

// onFailure is a request that timed out: retry with backoff, sending every
// field again.
func (c *Client) onFailure(env sim.ClientEnv, out *sim.Effects) {
	c.inFlight = 0
	c.sent.reset()
	c.onFailedAttempt(env)
	if c.state == Unsubscribed && c.leaveInProgress {
		c.completeLeave()
	}
}

// onFailedAttempt resets the heartbeat timer and backs off exponentially
// (retry.backoff.ms up to retry.backoff.max.ms; Kafka adds jitter, rebalsim
// does not).
func (c *Client) onFailedAttempt(env sim.ClientEnv) {
	c.nextHeartbeat = env.Now
	c.backoff = min(max(2*c.backoff, c.cfg.RetryBackoff), maxRetryBackoff)
	c.backoffUntil = env.Now + c.backoff
}
