package sim

import "slices"

// send delivers msg after the network's latency, keeping each direction
// of a connection in order, and drops it if either end is cut off.
//
// p is the member process at the other end from the coordinator.
func (w *world) send(p *process, from, to Endpoint, msg Message, thread Thread) {
	now := w.k.Now()
	if now < p.cutOffUntil {
		if w.traceOn() {
			w.traceMessage(traceRecord{Event: "drop", Msg: msg.Kind(), Detail: "network partition"}, from, to)
		}
		return
	}
	latency := p.fixedLatency
	if !p.latencyFixed {
		latency = p.latency.Sample()
	}
	arrive := now + latency
	// One end is the coordinator, the other p: the direction, found once,
	// picks the connection's FIFO and the member end's incarnation.
	toCoordinator := to.Process == coordinatorProcess
	last, incarnation := &p.lastFromCoord, to.Incarnation
	if toCoordinator {
		last, incarnation = &p.lastToCoord, from.Incarnation
	}
	if arrive < *last {
		arrive = *last
	}
	*last = arrive
	if w.traceOn() {
		w.traceMessage(traceRecord{Event: "send", Msg: msg.Kind(), Body: msg}, from, to)
	}
	d := w.deliveries.get()
	d.p, d.msg, d.thread, d.toCoordinator, d.incarnation = p, msg, thread, toCoordinator, incarnation
	w.k.schedule(arrive, d)
}

// delivery is a message in flight: the kernel event that hands it to its
// receiver. Deliveries are pooled, as they are a large share of all events.
// One end of every message is the coordinator and the other the member
// process p, so a delivery records only the direction and the member's
// incarnation, which keeps it within a cache line.
type delivery struct {
	p   *process
	msg Message
	// incarnation is the member end's: the sender's of a request, the
	// addressee's of a response.
	incarnation   int
	thread        Thread
	toCoordinator bool
}

// ends returns the sender and addressee of a message between the
// coordinator and incarnation of p.
func ends(p *process, incarnation int, toCoordinator bool) (from, to Endpoint) {
	member := Endpoint{Process: p.name, Incarnation: incarnation}
	if toCoordinator {
		return member, Coordinator
	}
	return Coordinator, member
}

func (d *delivery) fire() {
	p, msg, thread, incarnation, toCoordinator := d.p, d.msg, d.thread, d.incarnation, d.toCoordinator
	w := p.w
	w.deliveries.put(d)
	if w.k.Now() < p.cutOffUntil {
		if w.traceOn() {
			from, to := ends(p, incarnation, toCoordinator)
			w.traceMessage(traceRecord{Event: "drop", Msg: msg.Kind(), Detail: "network partition"}, from, to)
		}
		return
	}
	if w.traceOn() {
		// Delivery time, so a reader sees each message's latency; the
		// body was traced with the send. A message to a process that
		// has since died is still delivered here and then ignored.
		from, to := ends(p, incarnation, toCoordinator)
		w.traceMessage(traceRecord{Event: "recv", Msg: msg.Kind()}, from, to)
	}
	if toCoordinator {
		if c := p.connOf(incarnation); c != nil && c.held {
			// The broker has not read it yet: it waits behind the held
			// request (HeldRequest).
			c.waiting = append(c.waiting, waitingRequest{msg: msg, thread: thread})
			if w.traceOn() {
				from, to := ends(p, incarnation, toCoordinator)
				w.traceMessage(traceRecord{Event: "wait", Msg: msg.Kind(), Detail: "behind a held request"}, from, to)
			}
			return
		}
		w.coordinatorReads(p, incarnation, thread, msg)
		return
	}
	if !p.alive || p.incarnation != incarnation {
		return
	}
	if r, ok := msg.(OffsetCommitResponse); ok {
		// The simulator reads commit responses itself (offsetcommit.go),
		// and hands a rejection to a client that reacts to one.
		if p.commitWait != nil && p.commitWait.waiting {
			w.commitAnswered(p)
		} else if p.awaitingCommit {
			w.commitAwaited(p, incarnation)
		}
		if _, reacts := p.client.(CommitResponder); reacts && len(r.Rejected) > 0 && r.sent != nil && p.alive && p.incarnation == incarnation {
			w.stepClient(p, thread, clientInput{fn: func(c Client, env ClientEnv, out *Effects) {
				if h, ok := c.(CommitResponder); ok {
					h.OffsetCommitRejected(env, *r.sent, r, out)
				}
			}})
		}
		return
	}
	w.stepClient(p, thread, clientInput{kind: inputReceive, msg: msg})
}

// coordinatorConn is the coordinator's end of one incarnation's
// connection: whether it holds a request, and the requests that arrived
// behind it, in order. Each incarnation (each process) has a connection
// of its own, and an old one lives on while it holds something: a
// closing process's LeaveGroup may still wait behind its held JoinGroup
// when its successor has started.
type coordinatorConn struct {
	held        bool
	incarnation int
	waiting     []waitingRequest
}

// connOf returns the connection of p's incarnation that holds a request
// or has requests waiting, nil if it has none.
func (p *process) connOf(incarnation int) *coordinatorConn {
	for i := range p.conns {
		if p.conns[i].incarnation == incarnation {
			return &p.conns[i]
		}
	}
	return nil
}

// dropIdleConns forgets connections that neither hold nor queue anything.
func (p *process) dropIdleConns() {
	p.conns = slices.DeleteFunc(p.conns, func(c coordinatorConn) bool { return !c.held && len(c.waiting) == 0 })
}

type waitingRequest struct {
	msg    Message
	thread Thread
}

// coordinatorReads hands the coordinator a request of p's incarnation and
// applies what it does. A HeldRequest it does not answer in that step
// holds the connection until it answers the member (applyCoordinator).
func (w *world) coordinatorReads(p *process, incarnation int, thread Thread, msg Message) {
	out := w.effects()
	if oc, ok := msg.(OffsetCommit); ok {
		// The coordinator answers an OffsetCommit in the step that
		// receives it; the answer applies the request's positions.
		w.commitRead = oc
		w.commitInHand = &w.commitRead
	}
	from := p.endpoint(incarnation)
	from.thread = thread
	w.coord.Receive(w.coordEnv(), from, msg, out)
	if _, mayBeHeld := msg.(HeldRequest); mayBeHeld && !answers(out, from) {
		if c := p.connOf(incarnation); c != nil {
			c.held = true
		} else {
			p.conns = append(p.conns, coordinatorConn{held: true, incarnation: incarnation})
		}
	}
	w.applyCoordinator(out, p)
	if w.commitInHand != nil {
		w.commitInHand, w.commitRead = nil, OffsetCommit{}
	}
	w.release(out)
}

// answers reports whether out sends anything to the member end of to.
func answers(out *Effects, to Endpoint) bool {
	for i := range out.Sends {
		if s := &out.Sends[i]; s.To.Process == to.Process && s.To.Incarnation == to.Incarnation {
			return true
		}
	}
	return false
}

// answered notes that the coordinator sent p's incarnation a message.
// Only the held request can be answered while one is held, as the broker
// has read nothing after it; once it is, the broker reads what waited
// behind it, in order, right after this step, until one is held again.
// (A client that gives up on a held request disconnects in Kafka,
// NetworkClient.handleTimedOutRequests, which drops what waited; the
// model's clients give up on a JoinGroup only after the rebalance
// timeout, by which the coordinator has answered it, so that is not
// modelled.)
func (w *world) answered(p *process, incarnation int) {
	c := p.connOf(incarnation)
	if c == nil || !c.held {
		return
	}
	c.held = false
	if len(c.waiting) == 0 {
		p.dropIdleConns()
		return
	}
	w.k.At(w.k.Now(), func() { w.readWaiting(p, incarnation) })
}

// readWaiting hands the coordinator the requests that waited behind a held
// one, until one of them is held in turn.
func (w *world) readWaiting(p *process, incarnation int) {
	for {
		c := p.connOf(incarnation)
		if c == nil || c.held || len(c.waiting) == 0 {
			break
		}
		r := c.waiting[0]
		c.waiting = c.waiting[1:]
		w.coordinatorReads(p, incarnation, r.thread, r.msg)
	}
	p.dropIdleConns()
}
