package nextgen

import (
	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/sim"
)

// The membership manager's transitions (AbstractMembershipManager,
// ConsumerMembershipManager), one method each, named as Kafka names them.

// afterCallback is what the client does when a callback it asked for
// returns.
type afterCallback int

const (
	// thenAssign: a reconciliation's revoke returned; drop the revoked
	// partitions and assign the new ones.
	thenAssign afterCallback = iota
	// thenAcknowledge: a reconciliation's assign returned; acknowledge.
	thenAcknowledge
	// thenRejoin: a fenced member's lost returned; rejoin with epoch 0.
	thenRejoin
	// thenForget: a fatal member's lost returned; forget the assignment.
	thenForget
	// thenLeave: close()'s release returned; send the leave heartbeat.
	thenLeave
	// thenReleased: a stale member's lost returned; rejoin if the
	// application polled meanwhile.
	thenReleased
)

func (a afterCallback) String() string {
	return [...]string{"assign", "acknowledge", "rejoin", "forget", "leave", "released"}[a]
}

// pendingCallback is a callback the client asked for and what follows it.
type pendingCallback struct {
	token int
	then  afterCallback
	// reconciliation is the one the callback is part of (thenAssign,
	// thenAcknowledge).
	reconciliation reconciliation
}

// reconciliation is one pass of maybeReconcile: the assignment it
// installs, and what it revokes and adds on the way.
type reconciliation struct {
	resolved       localAssignment
	revoked, added kafka.Assignment
	// inPoll is set when the application's poll event started it: the
	// callbacks it asks for reach the application thread after that
	// poll() has handled its background events, so they run in a later one.
	inPoll bool
}

// invoke asks the application thread to run a rebalance callback and
// continues with then when it returns. An empty revoked or lost callback
// is skipped, but an empty assigned one runs when there is a listener
// (ConsumerMembershipManager.invokeOnPartitionsAssignedCallback "should
// always trigger the callback, even if partitionsAssigned is empty"): the
// member acknowledges only after it, so a member that revoked and gained
// nothing waits for one more poll() before the partitions are free.
func (c *Client) invoke(env sim.ClientEnv, out *sim.Effects, kind sim.CallbackKind, parts kafka.Assignment, then pendingCallback) {
	if parts.Size() == 0 && (kind != sim.CallbackAssigned || !c.cfg.RebalanceListener) {
		c.continueAfter(env, then, out)
		return
	}
	c.nextToken++
	// Without a rebalance listener there is nothing for the application
	// thread to run: ConsumerMembershipManager's invokeOnPartitions*Callback
	// complete at once on the background thread, after the commit before
	// revocation (maybeAutoCommitSyncBeforeRevocation).
	thread := sim.BackgroundThread
	if c.cfg.RebalanceListener {
		thread = sim.AppThread
	}
	// The assigned callback of a reconciliation that revoked first is
	// enqueued when the revoke's completion reaches the background thread,
	// so the application runs it in a later poll().
	r := then.reconciliation
	next := r.inPoll || kind == sim.CallbackAssigned && r.revoked.Size() > 0
	out.Callbacks = append(out.Callbacks, sim.Callback{Kind: kind, Partitions: parts.Partitions(), Commit: kind == sim.CallbackRevoked, Token: c.nextToken, Thread: thread, NextPoll: next})
	then.token = c.nextToken
	c.pending = append(c.pending, then)
}

// continueAfter does what follows a callback.
func (c *Client) continueAfter(env sim.ClientEnv, p pendingCallback, out *sim.Effects) {
	switch p.then {
	case thenAssign:
		c.owned = c.owned.Minus(p.reconciliation.revoked)
		if c.maybeAbortReconciliation() {
			return
		}
		c.assignPartitions(env, p.reconciliation, out)
	case thenAcknowledge:
		if !c.reconciliationInProgress || c.maybeAbortReconciliation() {
			return
		}
		c.current = p.reconciliation.resolved
		c.transitionTo(Acknowledging, out)
		c.reconciliationInProgress = false
	case thenRejoin:
		c.clearAssignment()
		if c.state == Fenced {
			c.transitionToJoining(out)
		}
	case thenForget:
		c.clearAssignment()
	case thenLeave:
		c.clearAssignment()
		if c.closing && !c.static() && !c.cfg.LeavesOnClose() {
			// remain_in_group: a dynamic member sends no leave heartbeat
			// and stays until its session times out
			// (ConsumerHeartbeatRequestManager.shouldSendLeaveHeartbeatNow).
			c.transitionTo(Unsubscribed, out)
			c.completeLeave()
			return
		}
		c.transitionToSendingLeaveGroup(false, out)
	case thenReleased:
		c.clearAssignment()
		c.staleReleased = true
		if c.rejoinWhenReleased && c.state == Stale {
			c.transitionToJoining(out)
		}
	}
}

// processAssignmentReceived takes a new target from a heartbeat response:
// anything different from what the member holds starts a reconciliation.
func (c *Client) processAssignmentReceived(assignment kafka.Assignment, out *sim.Effects) {
	if t, changed := c.target.updateWith(assignment); changed {
		c.target = t
	}
	if !c.targetAssignmentReconciled() {
		c.transitionTo(Reconciling, out)
	} else if c.state == Reconciling || c.state == Joining {
		c.transitionTo(MemberStable, out)
	}
}

func (c *Client) targetAssignmentReconciled() bool { return c.current.equal(c.target) }

// maybeReconcile reconciles the target: revoke what is no longer
// assigned (committing first), then assign what is new, each callback on
// the application thread, then acknowledge. A partition not involved
// keeps being processed throughout. All topics resolve at once: the model
// has no metadata lag for topic ids.
//
// canCommit says the application's poll event asks (the PollEvent of
// 4.0 and 4.1, the AsyncPollEvent of 4.2 on: ApplicationEventProcessor
// passes true); the background thread's own pass passes false
// (AbstractMembershipManager.poll). Without canCommit nothing starts
// when enable.auto.commit is on, in every release, and from 4.3 nothing
// that revokes either: those reconciliations wait for the poll event,
// and the client asks for the next poll() meanwhile.
func (c *Client) maybeReconcile(env sim.ClientEnv, canCommit bool, out *sim.Effects) {
	if c.state != Reconciling || c.targetAssignmentReconciled() || c.reconciliationInProgress {
		return
	}
	r := reconciliation{resolved: localAssignment{epoch: c.target.epoch, partitions: c.target.partitions.Clone()}, inPoll: canCommit}
	r.revoked = c.owned.Minus(r.resolved.partitions)
	if !canCommit && (c.cfg.EnableAutoCommit || sim.ReleaseAtLeast(env.Release, "4.3") && r.revoked.Size() > 0) {
		out.WantPoll = true
		return
	}
	c.reconciliationInProgress, c.rejoinedWhileReconciliationInProgress = true, false
	r.added = r.resolved.partitions.Minus(c.owned)
	c.invoke(env, out, sim.CallbackRevoked, r.revoked, pendingCallback{then: thenAssign, reconciliation: r})
}

// assignPartitions installs the reconciled assignment and runs the
// assigned callback; when it returns the member acknowledges.
func (c *Client) assignPartitions(env sim.ClientEnv, r reconciliation, out *sim.Effects) {
	c.owned = r.resolved.partitions.Clone()
	c.invoke(env, out, sim.CallbackAssigned, r.added, pendingCallback{then: thenAcknowledge, reconciliation: r})
}

// maybeAbortReconciliation drops a reconciliation that no longer applies:
// the member left RECONCILING (fenced, leaving) or rejoined meanwhile.
func (c *Client) maybeAbortReconciliation() bool {
	abort := c.state != Reconciling || c.rejoinedWhileReconciliationInProgress
	if abort {
		c.reconciliationInProgress, c.rejoinedWhileReconciliationInProgress = false, false
	}
	return abort
}

// clearAssignment forgets every assignment (the partitions were already
// released by a callback).
func (c *Client) clearAssignment() {
	c.owned = kafka.Assignment{}
	c.current = noAssignment
	c.target = noAssignment
}

// transitionToJoining rejoins with epoch 0. The member id is kept (Kafka
// 4.0 keeps it; the coordinator decides whether it still knows it).
func (c *Client) transitionToJoining(out *sim.Effects) {
	if c.state == Fatal {
		return
	}
	if c.reconciliationInProgress {
		c.rejoinedWhileReconciliationInProgress = true
	}
	c.memberEpoch = JoinGroupMemberEpoch
	c.transitionTo(Joining, out)
	c.target = noAssignment
}

// transitionToFenced is the reaction to UNKNOWN_MEMBER_ID and
// FENCED_MEMBER_EPOCH: the partitions are lost (onPartitionsLost, no
// commit) and, once the callback returns, the member rejoins with epoch 0.
func (c *Client) transitionToFenced(env sim.ClientEnv, why string, out *sim.Effects) {
	switch c.state {
	case PrepareLeaving:
		// Already leaving: no leave heartbeat is needed any more.
		c.transitionToSendingLeaveGroup(false, out)
		c.transitionTo(Unsubscribed, out)
		c.completeLeave()
		return
	case Leaving:
		c.transitionTo(Unsubscribed, out)
		c.completeLeave()
		return
	case Unsubscribed:
		return
	}
	if c.state == Reconciling || c.state == Acknowledging {
		out.Note(sim.Note{Kind: sim.NoteRebalanceEnd, Process: c.self.Process, MemberID: c.memberID, Failed: true, Detail: why})
	}
	out.Note(sim.Note{Kind: sim.NoteFenced, Process: c.self.Process, MemberID: c.memberID, Detail: why})
	c.transitionTo(Fenced, out)
	c.memberEpoch = JoinGroupMemberEpoch
	c.invoke(env, out, sim.CallbackLost, c.owned, pendingCallback{then: thenRejoin})
}

// transitionToFatal stops the member for good on an error the consumer
// cannot recover from; the application sees an exception (NoteJoinFailure).
func (c *Client) transitionToFatal(env sim.ClientEnv, why string, out *sim.Effects) {
	prev := c.state
	out.Note(sim.Note{Kind: sim.NoteJoinFailure, Process: c.self.Process, MemberID: c.memberID, Detail: "ConsumerGroupHeartbeat failed with " + why, Failed: true})
	if prev == Reconciling || prev == Acknowledging || prev == Joining {
		out.Note(sim.Note{Kind: sim.NoteRebalanceEnd, Process: c.self.Process, MemberID: c.memberID, Failed: true, Detail: why})
	}
	c.transitionTo(Fatal, out)
	switch prev {
	case Unsubscribed:
		return
	case Leaving, PrepareLeaving:
		c.completeLeave()
		return
	}
	c.invoke(env, out, sim.CallbackLost, c.owned, pendingCallback{then: thenForget})
}

// leaveGroup is close()'s leave: release the partitions (revoked while the
// member is in the group, lost otherwise), then send the leave heartbeat.
func (c *Client) leaveGroup(env sim.ClientEnv, out *sim.Effects) {
	switch c.state {
	case Unsubscribed, Fenced, Fatal, Stale:
		if c.state == Fenced {
			c.transitionTo(Unsubscribed, out)
		}
		c.leaveDone = true
		return
	case PrepareLeaving, Leaving:
		return
	}
	c.transitionTo(PrepareLeaving, out)
	c.leaveInProgress = true
	kind := sim.CallbackRevoked
	if c.memberEpoch <= 0 {
		kind = sim.CallbackLost
	}
	c.invoke(env, out, kind, c.owned, pendingCallback{then: thenLeave})
}

// transitionToSendingLeaveGroup moves to LEAVING with the leave epoch (-1,
// or -2 for a static member); the next heartbeat goes out at once. A poll
// timer expiry passes briefly through PREPARE_LEAVING: a stale member has
// nothing to revoke, it reports its partitions lost after the leave.
func (c *Client) transitionToSendingLeaveGroup(dueToExpiredPollTimer bool, out *sim.Effects) {
	if c.state == Fatal || c.state == Unsubscribed {
		return
	}
	if dueToExpiredPollTimer {
		c.isPollTimerExpired = true
		c.transitionTo(PrepareLeaving, out)
	}
	c.memberEpoch = c.leaveGroupEpoch()
	c.current = noAssignment
	c.transitionTo(Leaving, out)
}

func (c *Client) leaveGroupEpoch() int32 {
	// KIP-1092: a static member closing with leave_group leaves for good.
	if c.static() && !(c.closing && c.cfg.CloseMembership == sim.CloseLeaveGroup) {
		return LeaveGroupStaticMemberEpoch
	}
	return LeaveGroupMemberEpoch
}

// onHeartbeatRequestGenerated moves on once a heartbeat went out: an
// acknowledgement makes the member STABLE (or RECONCILING, if a newer
// target arrived meanwhile); a leave makes it UNSUBSCRIBED, or STALE after
// a poll timer expiry.
func (c *Client) onHeartbeatRequestGenerated(env sim.ClientEnv, out *sim.Effects) {
	switch c.state {
	case Acknowledging:
		if c.targetAssignmentReconciled() {
			c.transitionTo(MemberStable, out)
		} else {
			c.transitionTo(Reconciling, out)
		}
	case Leaving:
		if c.isPollTimerExpired {
			c.transitionToStale(env, out)
		} else {
			c.transitionTo(Unsubscribed, out)
		}
	}
}

// transitionToStale: the member left because the application did not poll
// in time. It reports its partitions lost and waits, without heartbeats,
// for the application's next poll to rejoin.
func (c *Client) transitionToStale(env sim.ClientEnv, out *sim.Effects) {
	out.Note(sim.Note{Kind: sim.NoteFenced, Process: c.self.Process, MemberID: c.memberID, Detail: "poll timeout: max.poll.interval.ms exceeded"})
	c.transitionTo(Stale, out)
	c.staleReleased, c.rejoinWhenReleased = false, false
	c.invoke(env, out, sim.CallbackLost, c.owned, pendingCallback{then: thenReleased})
	out.WantPoll = true
}

// maybeRejoinStaleMember: the application polled again after its poll timer
// expired; a STALE member rejoins once its partitions are released.
func (c *Client) maybeRejoinStaleMember(out *sim.Effects) {
	c.isPollTimerExpired = false
	if c.state != Stale {
		return
	}
	if c.staleReleased {
		c.transitionToJoining(out)
	} else {
		c.rejoinWhenReleased = true
	}
}

// completeLeave finishes close()'s leave (maybeCompleteLeaveInProgress).
func (c *Client) completeLeave() {
	c.leaveInProgress = false
	if c.closing {
		c.leaveDone = true
	}
}
