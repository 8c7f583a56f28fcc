package sim

import (
	"slices"

	"github.com/rebalsim/rebalsim/kafka"
)

// Offset commits travel as messages, as Kafka's clients send them: an
// OffsetCommit request carrying the member id and the generation (classic)
// or member epoch (consumer protocol) the client knows when it sends it,
// answered by the coordinator after it has validated the request for each
// partition (OffsetMetadataManager.commitOffset → validateOffsetCommit →
// Group.validateOffsetCommit). The ledger counts the records a member had
// processed when it sent the request as committed at the instant the
// coordinator accepts the commit, partition by partition (Kafka 4.3
// accepts some partitions of a request and rejects others); what it
// processed while the request was in flight stays uncommitted, and so
// does a rejected partition, so the next owner processes them again.
//
// The simulator, not the client model, decides when the application
// commits (the auto-commit ticks in poll(), onJoinPrepare, the commit
// before a revocation or in the listener), so it asks the client to fill
// in the request (OffsetCommitter) and reads the response itself; a
// client that reacts to a rejected commit as Kafka's do (CommitResponder:
// the classic client resets its generation or rejoins) is then handed the
// request and its answer.

// OffsetCommit is an OffsetCommitRequest (v9+) for the partitions the
// member holds. The offsets are the ledger's counts captured when the
// request is sent (positions), which the coordinator models need not read.
type OffsetCommit struct {
	MemberID        string `json:"member_id"`
	GroupInstanceID string `json:"group_instance_id,omitempty"`
	// GenerationIDOrMemberEpoch is the classic generation or the consumer
	// protocol's member epoch, as the client knows it.
	GenerationIDOrMemberEpoch int32                  `json:"generation_id_or_member_epoch"`
	Partitions                []kafka.TopicPartition `json:"partitions"`
	// positions are the offsets the request carries.
	positions *Positions
}

// Kind names the request in traces.
func (OffsetCommit) Kind() string { return "OffsetCommit" }

// CommitError is one partition's error in an OffsetCommitResponse, by its
// Kafka name (ILLEGAL_GENERATION, STALE_MEMBER_EPOCH, ...).
type CommitError struct {
	Partition kafka.TopicPartition `json:"partition"`
	Error     string               `json:"error"`
}

// OffsetCommitResponse answers an OffsetCommit. Kafka answers with an
// error code per partition, a request-level error copied to each; here
// only the partitions that failed are listed, so an empty list is a
// commit accepted whole.
type OffsetCommitResponse struct {
	Rejected []CommitError `json:"rejected,omitempty"`
	// sent is the request answered, for the client's handler (Kafka's
	// response handler keeps the generation it sent).
	sent *OffsetCommit
}

// Kind names the response in traces.
func (OffsetCommitResponse) Kind() string { return "OffsetCommitResponse" }

// RejectAll answers a request that fails as a whole with err for each of
// its partitions (OffsetMetadataManager.commitOffset copies a
// request-level error to every partition).
func RejectAll(req OffsetCommit, err string) OffsetCommitResponse {
	r := OffsetCommitResponse{Rejected: make([]CommitError, 0, len(req.Partitions))}
	for _, tp := range req.Partitions {
		r.Rejected = append(r.Rejected, CommitError{Partition: tp, Error: err})
	}
	if len(r.Rejected) == 0 {
		r.Rejected = append(r.Rejected, CommitError{Error: err})
	}
	return r
}

// OffsetCommitter is a client that names itself in an OffsetCommit: the
// member id, group instance id, and the generation or member epoch it
// knows now (ConsumerCoordinator.sendOffsetCommitRequest,
// CommitRequestManager.createOffsetCommitRequest). A client without it
// commits nothing.
type OffsetCommitter interface {
	OffsetCommit(tps []kafka.TopicPartition) OffsetCommit
}

// CommitResponder is a client that reacts to a rejected OffsetCommit
// (ConsumerCoordinator.OffsetCommitResponseHandler.handle), given the
// request it sent and the coordinator's answer. A client without it only
// learns from its other requests.
type CommitResponder interface {
	OffsetCommitRejected(env ClientEnv, sent OffsetCommit, r OffsetCommitResponse, out *Effects)
}

// CommitAwaiter is a client that waits for the answer to the commit its
// Effects.CommitOffsets sent before it goes on: the classic client's
// onJoinPrepare sends its auto-commit asynchronously and, polled with a
// zero join timer (ClassicKafkaConsumer.poll), joins only in the first
// poll() after the commit is answered (ConsumerCoordinator.onJoinPrepare
// returns false while autoCommitOffsetRequestFuture is not done). The
// world calls CommitAnswered on the background thread when the answer is
// in, when the request timed out, or at once if there was nothing to
// commit.
type CommitAwaiter interface {
	CommitAnswered(env ClientEnv, out *Effects)
}

// awaitCommit tells a CommitAwaiter client when the commit of
// Effects.CommitOffsets is answered; sent says whether one went out.
func (w *world) awaitCommit(p *process, sent bool) {
	if _, ok := p.client.(CommitAwaiter); !ok {
		return
	}
	if !sent {
		w.commitAwaited(p, p.incarnation)
		return
	}
	inc := p.incarnation
	p.awaitingCommit = true
	w.k.At(w.k.Now()+p.cfg.RequestTimeout, func() {
		if p.incarnation == inc && p.awaitingCommit {
			w.commitAwaited(p, inc)
		}
	})
}

// commitAwaited hands the awaited commit's answer to the client.
func (w *world) commitAwaited(p *process, inc int) {
	p.awaitingCommit = false
	w.stepClientNow(p, inc, BackgroundThread, clientInput{fn: answerCommit})
}

// stepClientNow schedules, for this instant, one input to the client of
// p's incarnation inc on thread t; the input is dropped if the process
// has restarted by then. The events are pooled: on every rebalance each
// member of a big group asks for a poll() and, if it owns nothing, gets
// its commit answered so.
func (w *world) stepClientNow(p *process, inc int, t Thread, in clientInput) {
	e := w.clientSteps.get()
	e.p, e.incarnation, e.thread, e.in = p, inc, t, in
	w.k.schedule(w.k.Now(), e)
}

// clientStep is stepClientNow's event.
type clientStep struct {
	p           *process
	incarnation int
	thread      Thread
	in          clientInput
}

func (e *clientStep) fire() {
	w, p, inc, t, in := e.p.w, e.p, e.incarnation, e.thread, e.in
	w.clientSteps.put(e)
	if p.incarnation == inc {
		w.stepClient(p, t, in)
	}
}

// answerCommit is the input that tells a CommitAwaiter client its commit
// is answered.
func answerCommit(c Client, env ClientEnv, out *Effects) {
	if a, ok := c.(CommitAwaiter); ok {
		a.CommitAnswered(env, out)
	}
}

// commitWait is a revocation's synchronous commit in flight: commitSync
// blocks the revocation until the response arrives (or the request times
// out), and the callback then completes.
type commitWait struct {
	// done finishes the revocation once the response is in.
	done func()
	// waiting is set until the response arrives or the request times out.
	waiting bool
}

// sendOffsetCommit sends p's client's OffsetCommit for everything p owns,
// from thread. It reports whether a request went out: a client that
// cannot name itself, or owns nothing, sends none.
func (w *world) sendOffsetCommit(p *process, thread Thread) bool {
	oc, ok := p.client.(OffsetCommitter)
	if !ok || p.client == nil {
		return false
	}
	pos := w.ledger.Positions(p.idx)
	if len(pos.tps) == 0 {
		return false
	}
	req := oc.OffsetCommit(pos.Partitions())
	// The request keeps a copy: were pos itself kept, it would go to the
	// heap on every call, and most members of a big group own nothing.
	sent := pos
	req.positions = &sent
	w.send(p, Endpoint{Process: p.name, Incarnation: p.incarnation}, Coordinator, req, thread)
	return true
}

// committed applies the coordinator's answer to an OffsetCommit of p's
// incarnation at the instant the coordinator decides it: the partitions
// it accepted are committed up to the positions the request carried
// (req, the request the coordinator is answering), and a commit with any
// partition rejected is counted.
func (w *world) committed(p *process, to Endpoint, req *Positions, r OffsetCommitResponse) {
	if len(r.Rejected) > 0 && w.k.Now() >= w.ledger.windowStart {
		w.rejectedCommits++
	}
	if req == nil || !p.alive || to.Incarnation != p.incarnation {
		return
	}
	var accept func(kafka.TopicPartition) bool
	if len(r.Rejected) > 0 {
		accept = func(tp kafka.TopicPartition) bool {
			return !slices.ContainsFunc(r.Rejected, func(e CommitError) bool { return e.Partition == tp || e.Partition == (kafka.TopicPartition{}) })
		}
	}
	w.ledger.CommitPositions(p.idx, *req, accept)
	if accept == nil {
		// Only a rejection goes on to the client, with the request
		// (applyCoordinator): an answer accepted whole ends it here.
		w.ledger.Answered(p.idx, *req)
	}
}

// commitAnswered ends the wait of a revocation's commit when its response
// reaches the client.
func (w *world) commitAnswered(p *process) {
	c := p.commitWait
	if c == nil || !c.waiting {
		return
	}
	c.waiting = false
	if c.done != nil {
		p.commitWait = nil
		c.done()
	}
}
